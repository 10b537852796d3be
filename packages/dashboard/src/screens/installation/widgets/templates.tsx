/**
 * rjsf templates for a plain form: each field labels itself (so a label is never drawn twice), no
 * fieldset around the root, and text and number inputs as native, labelled inputs.
 */
import {
  ariaDescribedByIds,
  type BaseInputTemplateProps,
  descriptionId,
  type FieldTemplateProps,
  getInputProps,
  type ObjectFieldTemplateProps,
} from '@rjsf/utils';
import type { ComponentProps } from 'react';

export function FieldTemplate({ children, errors, help, hidden }: FieldTemplateProps) {
  if (hidden) return <div hidden>{children}</div>;
  return (
    <div className="field">
      {children}
      {errors}
      {help}
    </div>
  );
}

export function ObjectFieldTemplate({ properties }: ObjectFieldTemplateProps) {
  return <div className="stack">{properties.map((property) => property.content)}</div>;
}

export function BaseInputTemplate(props: BaseInputTemplateProps) {
  const {
    id,
    label,
    value,
    onChange,
    onBlur,
    onFocus,
    required,
    disabled,
    readonly,
    schema,
    type,
    options,
    rawErrors,
  } = props;
  const inputProps = getInputProps(schema, type, options);
  // A number is typed as text: a native number input turns what it cannot hold (1.5e400, 1,5) into
  // an empty value, which would read as "cleared". The form checks the text it gets instead.
  const numeric = inputProps.type === 'number';
  if (numeric) {
    inputProps.type = 'text';
    delete inputProps.step;
  }
  const described = isDescribed(schema);
  return (
    <>
      <FieldLabel id={id} label={label} required={required} description={schema.description} />
      <input
        id={id}
        name={id}
        className="input"
        {...inputProps}
        {...(numeric ? { inputMode: 'decimal' as const } : {})}
        value={value === undefined || value === null ? '' : value}
        required={required}
        disabled={disabled}
        readOnly={readonly}
        aria-invalid={rawErrors?.length ? true : undefined}
        aria-describedby={ariaDescribedByIds(id, described)}
        onChange={(event) => onChange(event.target.value === '' ? options.emptyValue : event.target.value)}
        onBlur={(event) => onBlur(id, event.target.value)}
        onFocus={(event) => onFocus(id, event.target.value)}
      />
    </>
  );
}

/** Whether a field has a description to show (and to point `aria-describedby` at). */
export const isDescribed = (schema: { description?: string | undefined }) =>
  typeof schema.description === 'string' && schema.description !== '';

/** A field's label and its description, as every input here draws them (FieldTemplate draws none). */
export function FieldLabel(props: {
  id: string;
  label: string;
  required?: boolean | undefined;
  description?: string | undefined;
}) {
  const { id, label, required, description } = props;
  return (
    <>
      <label htmlFor={id}>
        {label}
        {required ? <span aria-hidden="true"> *</span> : null}
      </label>
      {description ? (
        <span id={descriptionId(id)} className="description">
          {description}
        </span>
      ) : null}
    </>
  );
}

/** The form element, named for assistive technology (rjsf renders a bare `<form>`). */
export function ConfigurationFormTag(props: ComponentProps<'form'>) {
  return <form {...props} aria-label="Configuration" />;
}
