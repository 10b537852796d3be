import type { WidgetProps } from '@rjsf/utils';
import { Switch } from 'react-aria-components';

/** A boolean: a toggle named by the property's title. */
export function ToggleWidget({ id, label, value, onChange, disabled, readonly, schema }: WidgetProps) {
  return (
    <div className="field">
      <Switch
        id={id}
        className="switch"
        isSelected={value === true}
        onChange={onChange}
        isDisabled={disabled || readonly}
      >
        <span className="track" aria-hidden="true" />
        {label}
      </Switch>
      {schema.description ? <span className="description">{schema.description}</span> : null}
    </div>
  );
}
