/** `.raw.js` files are imported as their text: that platform's build, and `portico publish`, do so. */
declare module '*.raw.js' {
  const text: string;
  export default text;
}
