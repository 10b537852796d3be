import type { WebframeElement } from '@portico/runtime/contentkit';
import { useEffect, useRef } from 'react';
import type { Interaction } from './interaction';
import { resolve } from './state-bindings';

/**
 * A webframe: sandboxed, its scripts run in an opaque origin (no cookies, no access to this page).
 * Its `data`, with `{ $state }` bindings read now, is posted to it as `{ state: data }` when it
 * loads and whenever a value changes, so a frame follows an input without a round trip.
 */
export function WebframeView({ element, interaction }: { element: WebframeElement; interaction: Interaction }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const data =
    element.data === undefined
      ? undefined
      : Object.fromEntries(Object.entries(element.data).map(([key, value]) => [key, resolve(value, interaction.read)]));
  const serialized = data === undefined ? undefined : JSON.stringify(data);
  const post = () => {
    // The frame's origin is opaque ("null"): '*' is the only target that reaches it; the data is the integration's own.
    if (serialized !== undefined) frame.current?.contentWindow?.postMessage({ state: JSON.parse(serialized) }, '*');
  };
  // Posts again only when the data changes.
  useEffect(post, [serialized]);
  return (
    <iframe
      ref={frame}
      className="ck-media"
      src={element.source.url}
      title={`Embedded page from ${hostOf(element.source.url)}`}
      sandbox="allow-scripts allow-popups"
      referrerPolicy="no-referrer"
      style={{ aspectRatio: element.aspectRatio ?? 16 / 9 }}
      onLoad={post}
    />
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
