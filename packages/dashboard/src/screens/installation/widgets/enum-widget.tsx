import type { WidgetProps } from '@rjsf/utils';
import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue, Text } from 'react-aria-components';

/** A string with `enum`: a dropdown of its options. */
export function EnumWidget({ id, label, value, onChange, options, schema, disabled, readonly, required }: WidgetProps) {
  const choices = (options.enumOptions ?? []).map((option) => ({
    id: String(option.value),
    label: String(option.label),
  }));
  return (
    <Select
      id={id}
      selectedKey={typeof value === 'string' ? value : null}
      onSelectionChange={(key) => onChange(key === null ? undefined : String(key))}
      isDisabled={disabled || readonly}
      isRequired={required}
      placeholder="Choose…"
      className="field"
    >
      <Label>{label}</Label>
      <Button className="select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </Button>
      {schema.description ? (
        <Text slot="description" className="description">
          {schema.description}
        </Text>
      ) : null}
      <Popover className="popover">
        <ListBox className="listbox" items={choices}>
          {(choice) => (
            <ListBoxItem id={choice.id} className="listbox-item">
              {choice.label}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}
