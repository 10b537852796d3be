import type { WidgetProps } from '@rjsf/utils';
import { useQuery } from '@tanstack/react-query';
import { useDeferredValue, useState } from 'react';
import { Button, ComboBox, Input, Label, ListBox, ListBoxItem, Popover, Text } from 'react-aria-components';
import { api, call } from '../../../api/client';
import { ErrorNote } from '../../../components/error-note';
import type { FormContext } from './form-context';

/**
 * A string whose options the integration serves (its `completion_url`): a dropdown filled from
 * POST /v1/installations/{id}/completions/{property} as the person types.
 */
export function CompletionWidget({
  id,
  name,
  label,
  value,
  onChange,
  disabled,
  readonly,
  required,
  schema,
  registry,
}: WidgetProps) {
  const context = registry.formContext as FormContext;
  const property = name;
  const [input, setInput] = useState(typeof value === 'string' ? value : '');
  const query = useDeferredValue(input);
  const [open, setOpen] = useState(false);
  const options = useQuery({
    queryKey: ['completions', context.installationId, property, query],
    queryFn: () =>
      call(
        api.POST('/v1/installations/{id}/completions/{property}', {
          params: { path: { id: context.installationId, property } },
          body: { configuration: context.values, query },
        }),
      ),
    enabled: open,
    staleTime: 10_000,
  });
  const items = options.data?.options ?? [];
  return (
    <div className="field">
      <ComboBox
        id={id}
        inputValue={input}
        onInputChange={(next) => {
          setInput(next);
          onChange(next === '' ? undefined : next);
        }}
        selectedKey={typeof value === 'string' && items.some((o) => o.value === value) ? value : null}
        onSelectionChange={(key) => {
          if (key === null) return;
          const chosen = items.find((o) => o.value === key);
          setInput(chosen?.label ?? String(key));
          onChange(String(key));
        }}
        onOpenChange={(isOpen) => isOpen && setOpen(true)}
        onFocus={() => setOpen(true)}
        allowsCustomValue
        menuTrigger="focus"
        isDisabled={disabled || readonly}
        isRequired={required}
        items={items.map((o) => ({ id: o.value, label: o.label }))}
      >
        <Label>{label}</Label>
        <div className="combo">
          <Input className="input" />
          <Button className="button" aria-label={`Show the options of ${label}`}>
            ▾
          </Button>
        </div>
        {schema.description ? (
          <Text slot="description" className="description">
            {schema.description}
          </Text>
        ) : null}
        <Popover className="popover">
          <ListBox
            className="listbox"
            renderEmptyState={() => (
              <p className="listbox-item muted">{options.isFetching ? 'Loading…' : 'No options'}</p>
            )}
          >
            {(item: { id: string; label: string }) => (
              <ListBoxItem id={item.id} className="listbox-item">
                {item.label}
              </ListBoxItem>
            )}
          </ListBox>
        </Popover>
      </ComboBox>
      {options.error ? <ErrorNote title={`The options of ${label} could not be loaded`} error={options.error} /> : null}
    </div>
  );
}
