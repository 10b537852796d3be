/**
 * The ContentKit inputs. Their values live in the component's state under the element's `state`
 * key and go back to the integration with the next action. ContentKit gives inputs no label, so
 * each is named by its placeholder (or its state key).
 */
import type { SelectElement, SwitchElement, TextInputElement } from '@portico/runtime/contentkit';
import {
  Button,
  Input,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
  Switch,
  TextArea,
  TextField,
} from 'react-aria-components';
import type { Interaction } from './interaction';

export function TextInputView({ element, interaction }: { element: TextInputElement; interaction: Interaction }) {
  const value = interaction.value(element.state, element.initialValue ?? '');
  return (
    <TextField
      aria-label={element.placeholder ?? element.state}
      value={typeof value === 'string' ? value : String(value ?? '')}
      onChange={(next) => interaction.setValue(element.state, next)}
      isDisabled={interaction.busy}
    >
      {element.multiline ? (
        <TextArea className="input" placeholder={element.placeholder} rows={4} />
      ) : (
        <Input className="input" placeholder={element.placeholder} />
      )}
    </TextField>
  );
}

export function SelectView({ element, interaction }: { element: SelectElement; interaction: Interaction }) {
  const value = interaction.value(element.state, element.initialValue);
  const name = element.placeholder ?? element.state;
  if (element.multiple) {
    const selected = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
    return (
      <ListBox
        aria-label={name}
        className="listbox panel"
        selectionMode="multiple"
        selectedKeys={selected}
        onSelectionChange={(keys) =>
          interaction.setValue(element.state, keys === 'all' ? element.options.map((o) => o.id) : [...keys].map(String))
        }
        items={element.options}
      >
        {(option) => (
          <ListBoxItem id={option.id} className="listbox-item">
            {option.label}
          </ListBoxItem>
        )}
      </ListBox>
    );
  }
  return (
    <Select
      aria-label={name}
      placeholder={element.placeholder ?? 'Choose…'}
      selectedKey={typeof value === 'string' ? value : null}
      onSelectionChange={(key) => interaction.setValue(element.state, key === null ? undefined : String(key))}
      isDisabled={interaction.busy}
    >
      <Button className="select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </Button>
      <Popover className="popover">
        <ListBox className="listbox" items={element.options}>
          {(option) => (
            <ListBoxItem id={option.id} className="listbox-item">
              {option.label}
            </ListBoxItem>
          )}
        </ListBox>
      </Popover>
    </Select>
  );
}

export function SwitchView({ element, interaction }: { element: SwitchElement; interaction: Interaction }) {
  const value = interaction.value(element.state, element.initialValue ?? false);
  return (
    <Switch
      className="switch"
      isSelected={value === true}
      isDisabled={interaction.busy}
      onChange={(next) => {
        interaction.setValue(element.state, next);
        if (element.onValueChange) interaction.press({ ...element.onValueChange, value: next });
      }}
    >
      <span className="track" aria-hidden="true" />
      {/* ContentKit gives a switch no label: its state key names it, and the integration's text beside it shows. */}
      <span className="visually-hidden">{element.state}</span>
    </Switch>
  );
}
