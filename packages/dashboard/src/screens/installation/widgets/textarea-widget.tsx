/**
 * A text field of several lines (a webhook's custom headers, one per line), labelled and described
 * like the other fields (rjsf's own textarea draws no label of its own, since FieldTemplate here
 * leaves labels to the widgets).
 */
import { ariaDescribedByIds, type WidgetProps } from '@rjsf/utils';
import { FieldLabel, isDescribed } from './templates';

export function TextareaWidget(props: WidgetProps) {
  const { id, label, value, onChange, onBlur, onFocus, required, disabled, readonly, schema, options, rawErrors } =
    props;
  const described = isDescribed(schema);
  return (
    <>
      <FieldLabel id={id} label={label} required={required} description={schema.description} />
      <textarea
        id={id}
        name={id}
        className="input"
        rows={typeof options.rows === 'number' ? options.rows : 4}
        value={value === undefined || value === null ? '' : value}
        required={required}
        disabled={disabled}
        readOnly={readonly}
        spellCheck={false}
        aria-invalid={rawErrors?.length ? true : undefined}
        aria-describedby={ariaDescribedByIds(id, described)}
        onChange={(event) => onChange(event.target.value === '' ? options.emptyValue : event.target.value)}
        onBlur={(event) => onBlur(id, event.target.value)}
        onFocus={(event) => onFocus(id, event.target.value)}
      />
    </>
  );
}
