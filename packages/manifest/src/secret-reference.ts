/** `${{ env.NAME }}`: the only form a manifest secret may take (spec 2.1). */
export const SECRET_REFERENCE = /^\$\{\{\s*env\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

export const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The environment variable a secret reference names, or undefined when it is not a reference. */
export function referencedVariable(value: string): string | undefined {
  return SECRET_REFERENCE.exec(value)?.[1];
}
