import type { ContentKitAction, WebframeElement } from '@portico/runtime/contentkit';
import { useEffect, useRef, useState } from 'react';
import type { Interaction } from './interaction';
import { resolve } from './state-bindings';

/**
 * A webframe: sandboxed, its scripts run in an opaque origin (no cookies, no access to this page).
 * Its `data`, with `{ $state }` bindings read now, is posted to it as `{ state: data }` when it
 * loads, when it says it is ready, and whenever a value changes, so a frame follows an input
 * without a round trip. The frame speaks as GitBook's webframes do, posting `{ action }` to this
 * page: `@webframe.ready` (send the data again), `@webframe.resize` with `size: { height }` or
 * `size: { aspectRatio }` (the frame takes that size), and any other action, sent to the
 * integration as a button's is. Only messages from this frame's own window are read.
 */
export function WebframeView({ element, interaction }: { element: WebframeElement; interaction: Interaction }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const [size, setSize] = useState<{ height?: number; aspectRatio?: number }>({});
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
  const latest = useRef({ post, press: interaction.press });
  latest.current = { post, press: interaction.press };
  useEffect(() => {
    const listen = (event: MessageEvent) => {
      if (frame.current === null || event.source !== frame.current.contentWindow) return;
      const action = (event.data as { action?: unknown } | null)?.action;
      if (typeof action !== 'object' || action === null || typeof (action as { action?: unknown }).action !== 'string')
        return;
      const sent = action as ContentKitAction;
      if (sent.action === '@webframe.ready') latest.current.post();
      else if (sent.action === '@webframe.resize') setSize(sizeOf(sent.size));
      else latest.current.press(sent);
    };
    window.addEventListener('message', listen);
    return () => window.removeEventListener('message', listen);
  }, []);
  return (
    <iframe
      ref={frame}
      className="ck-media"
      src={element.source.url}
      title={`Embedded page from ${hostOf(element.source.url)}`}
      sandbox="allow-scripts allow-popups"
      referrerPolicy="no-referrer"
      style={
        size.height !== undefined
          ? { height: size.height, aspectRatio: 'auto' }
          : { aspectRatio: size.aspectRatio ?? element.aspectRatio ?? 16 / 9 }
      }
      onLoad={post}
    />
  );
}

/** A size the frame asked for: a height in pixels, or an aspect ratio (positive, bounded numbers only). */
function sizeOf(value: unknown): { height?: number; aspectRatio?: number } {
  if (typeof value !== 'object' || value === null) return {};
  const { height, aspectRatio } = value as { height?: unknown; aspectRatio?: unknown };
  if (typeof height === 'number' && Number.isFinite(height) && height > 0) return { height: Math.min(height, 4000) };
  if (typeof aspectRatio === 'number' && Number.isFinite(aspectRatio) && aspectRatio > 0) return { aspectRatio };
  return {};
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
