/** The stand-in dependencies the test writes into the integration's node_modules. */
declare module 'dual-entry' {
  export const entry: string;
}
declare module 'cond-entry' {
  export const entry: string;
}
