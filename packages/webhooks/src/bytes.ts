/** Byte helpers on Uint8Array and Web APIs only, so this package runs in Node, workerd, Deno and Bun. */

const encoder = new TextEncoder();

export type RawBody = string | Uint8Array | ArrayBuffer;

export function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Each byte's two hex digits. */
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let hex = '';
  for (const byte of view) hex += HEX[byte];
  return hex;
}

/** A body as the HMAC takes it: a string as it is (hashed as its UTF-8 bytes), bytes as a view. */
export function asPart(body: RawBody): string | Uint8Array {
  return typeof body === 'string' || body instanceof Uint8Array ? body : new Uint8Array(body);
}

/** The bytes of a hex string, or undefined when it is not hex of even length. */
export function fromHex(hex: string): Uint8Array<ArrayBuffer> | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Standard base64 (`+/`, padded), as Standard Webhooks writes keys and signatures. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The bytes of base64 text in either alphabet (`+/` or base64url's `-_`), padding optional;
 * undefined when it is not base64.
 */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(standard) || standard.length % 4 === 1) return undefined;
  const binary = atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, '='));
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export { encoder };
