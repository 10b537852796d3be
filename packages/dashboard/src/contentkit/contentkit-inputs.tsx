/**
 * The ContentKit inputs. Their values live in the component's state under the element's `state`
 * key and go back to the integration with the next action. Inside an `input` element, its label
 * names the control and its hint describes it; a bare control is named by its placeholder (or its
 * state key), a radio or checkbox by its own label (or its value).
 */
import type {
  CheckboxElement,
  RadioElement,
  SelectElement,
  SwitchElement,
  TextInputElement,
} from '@portico/runtime/contentkit';
import { type ReactNode, useId } from 'react';
import {
  Button,
  Input,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select,
  SelectValue,
  Switch,
  Text,
  TextArea,
  TextField,
} from 'react-aria-components';
import type { Interaction } from './interaction';

/** The label and hint an `input` element gives its control. */
export interface Field {
  label: string;
  hint?: ReactNode;
  /** The id of the hint's element, for controls that point at it themselves. */
  hintId?: string;
}

interface ControlProps<E> {
  element: E;
  interaction: Interaction;
  field?: Field | undefined;
}

export function TextInputView({ element, interaction, field }: ControlProps<TextInputElement>) {
  const value = interaction.value(element.state, element.initialValue ?? '');
  return (
    <TextField
      className="ck-field"
      aria-label={field ? undefined : (element.placeholder ?? element.state)}
      value={typeof value === 'string' ? value : String(value ?? '')}
      onChange={(next) => interaction.setValue(element.state, next)}
      isDisabled={interaction.busy}
    >
      {field ? <Label className="label">{field.label}</Label> : null}
      {element.multiline ? (
        <TextArea className="input" placeholder={element.placeholder} rows={4} />
      ) : (
        <Input className="input" placeholder={element.placeholder} />
      )}
      {field?.hint ? (
        <Text slot="description" className="ck-hint">
          {field.hint}
        </Text>
      ) : null}
    </TextField>
  );
}

export function SelectView({ element, interaction, field }: ControlProps<SelectElement>) {
  const value = interaction.value(element.state, element.initialValue);
  const name = field?.label ?? element.placeholder ?? element.state;
  if (element.multiple) {
    const selected = Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];
    return (
      <div className="ck-field">
        {field ? <span className="label">{field.label}</span> : null}
        <ListBox
          aria-label={name}
          aria-describedby={field?.hintId}
          className="listbox panel"
          selectionMode="multiple"
          selectedKeys={selected}
          onSelectionChange={(keys) =>
            interaction.setValue(
              element.state,
              keys === 'all' ? element.options.map((o) => o.id) : [...keys].map(String),
            )
          }
          items={element.options}
        >
          {(option) => (
            <ListBoxItem id={option.id} className="listbox-item">
              {option.label}
            </ListBoxItem>
          )}
        </ListBox>
        {field?.hint ? (
          <span id={field.hintId} className="ck-hint">
            {field.hint}
          </span>
        ) : null}
      </div>
    );
  }
  return (
    <Select
      className="ck-field"
      aria-label={field ? undefined : name}
      placeholder={element.placeholder ?? 'Choose…'}
      selectedKey={typeof value === 'string' ? value : null}
      onSelectionChange={(key) => interaction.setValue(element.state, key === null ? undefined : String(key))}
      isDisabled={interaction.busy}
    >
      {field ? <Label className="label">{field.label}</Label> : null}
      <Button className="select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </Button>
      {field?.hint ? (
        <Text slot="description" className="ck-hint">
          {field.hint}
        </Text>
      ) : null}
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

export function SwitchView({ element, interaction, field }: ControlProps<SwitchElement>) {
  const value = interaction.value(element.state, element.initialValue ?? false);
  return (
    <Switch
      className="switch"
      isSelected={value === true}
      isDisabled={interaction.busy}
      aria-describedby={field?.hintId}
      onChange={(next) => {
        interaction.setValue(element.state, next);
        if (element.onValueChange) interaction.press({ ...element.onValueChange, value: next });
      }}
    >
      <span className="track" aria-hidden="true" />
      {field ? (
        <span>{field.label}</span>
      ) : (
        // A bare switch has no label: its state key names it, and the integration's text beside it shows.
        <span className="visually-hidden">{element.state}</span>
      )}
    </Switch>
  );
}

/** One choice of a radio group: the radios of one state key share a name, so arrow keys move between them. */
export function RadioView({ element, interaction, field }: ControlProps<RadioElement>) {
  const checked = interaction.read(element.state) === element.value;
  return (
    <label className="ck-choice">
      <input
        type="radio"
        name={`${interaction.id}:${element.state}`}
        checked={checked}
        disabled={element.disabled === true || interaction.busy}
        aria-describedby={field?.hintId}
        onChange={() => interaction.setValue(element.state, element.value)}
      />
      <span>{element.label ?? field?.label ?? String(element.value)}</span>
    </label>
  );
}

/** A checkbox: true/false under its state key, or, with a `value`, that value in the key's list. */
export function CheckboxView({ element, interaction, field }: ControlProps<CheckboxElement>) {
  const current = interaction.read(element.state);
  const list = Array.isArray(current) ? current : [];
  const checked = element.value === undefined ? current === true : list.includes(element.value);
  return (
    <label className="ck-choice">
      <input
        type="checkbox"
        checked={checked}
        disabled={element.disabled === true || interaction.busy}
        aria-describedby={field?.hintId}
        onChange={(event) => {
          const on = event.target.checked;
          if (element.value === undefined) interaction.setValue(element.state, on);
          else
            interaction.setValue(
              element.state,
              on
                ? [...list.filter((v) => v !== element.value), element.value]
                : list.filter((v) => v !== element.value),
            );
        }}
      />
      <span>
        {element.label ?? field?.label ?? (element.value === undefined ? element.state : String(element.value))}
      </span>
    </label>
  );
}

/** Gives a control a unique id for its hint. */
export function useHintId(): string {
  return `${useId()}-hint`;
}
