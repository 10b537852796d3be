/**
 * The server's messages name things in Markdown backticks (`api_key` is required). A person reads
 * them with each name as the field's title when the page knows it, else as code text.
 */
import { Fragment } from 'react';

/** `message` as plain text: each `name` becomes its title from `titles`, else the bare name. */
export function readable(message: string, titles: ReadonlyMap<string, string> = new Map()): string {
  return message.replace(/`([^`]+)`/g, (_, name: string) => titles.get(name) ?? name);
}

/** `message` rendered: each `name` as its title from `titles`, else as code. */
export function MessageText({ message, titles }: { message: string; titles?: ReadonlyMap<string, string> }) {
  const parts = message.split(/`([^`]+)`/);
  return (
    <>
      {parts.map((part, index) => {
        const key = `${index}:${part}`;
        if (index % 2 === 0) return <Fragment key={key}>{part}</Fragment>;
        const title = titles?.get(part);
        return title ? <Fragment key={key}>{title}</Fragment> : <code key={key}>{part}</code>;
      })}
    </>
  );
}
