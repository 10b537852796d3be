import { useEffect } from 'react';
import { useLocation } from 'react-router';

/** One section of the installation page: its fragment (`/installations/{id}#deliveries`) and its name. */
export interface Section {
  id: string;
  title: string;
}

/**
 * The installation page's sections as in-page links, kept at the top while scrolling, so Settings,
 * the signing secret and the logs are one press away however long the deliveries log is. Each
 * section has its own URL (the page's with `#id`); opening one scrolls to it and moves keyboard
 * focus there.
 */
export function SectionNav({ sections, ready }: { sections: Section[]; ready: boolean }) {
  const { hash } = useLocation();
  useEffect(() => {
    if (!ready || hash === '') return;
    const target = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (!target) return;
    target.scrollIntoView({ block: 'start' });
    target.focus({ preventScroll: true });
  }, [hash, ready]);
  return (
    <nav aria-label="Sections" className="section-nav">
      <ul>
        {sections.map((section) => (
          <li key={section.id}>
            <a href={`#${section.id}`} aria-current={hash === `#${section.id}` ? 'location' : undefined}>
              {section.title}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
