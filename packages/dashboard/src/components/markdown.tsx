import ReactMarkdown from 'react-markdown';

/**
 * Markdown from integrations, rendered safely: raw HTML is dropped (no rehype-raw), so a `<script>`
 * or an `onerror=` stays inert text or nothing; links and images keep only safe URL schemes
 * (react-markdown's default URL transform).
 */
export function Markdown({ children }: { children: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown skipHtml>{children}</ReactMarkdown>
    </div>
  );
}
