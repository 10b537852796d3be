import type { ConfigurationField } from '../../../api/queries';

/** What the configuration form's widgets need beyond their own value. */
export interface FormContext {
  installationId: string;
  fields: ConfigurationField[];
  /** The form's current values (a completion sends them to the integration). */
  values: Record<string, unknown>;
}

export function fieldOf(context: FormContext, name: string): ConfigurationField | undefined {
  return context.fields.find((field) => field.name === name);
}
