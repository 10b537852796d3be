import type { InputElement } from '@portico/runtime/contentkit';
import {
  CheckboxView,
  type Field,
  RadioView,
  SelectView,
  SwitchView,
  TextInputView,
  useHintId,
} from './contentkit-inputs';
import { InlineText } from './inline-text';
import type { Interaction } from './interaction';

/** An `input` element: its label names its control and its hint describes it. */
export function InputView({ element, interaction }: { element: InputElement; interaction: Interaction }) {
  const hintId = useHintId();
  const hint = element.hint !== undefined ? <InlineText>{element.hint}</InlineText> : undefined;
  const control = element.element;
  const field: Field = { label: element.label, ...(hint ? { hint, hintId } : {}) };
  switch (control.type) {
    case 'textinput':
      return <TextInputView element={control} interaction={interaction} field={field} />;
    case 'select':
      return <SelectView element={control} interaction={interaction} field={field} />;
    case 'switch':
      return (
        <div className="ck-field">
          <SwitchView element={control} interaction={interaction} field={field} />
          {hint ? (
            <span id={hintId} className="ck-hint">
              {hint}
            </span>
          ) : null}
        </div>
      );
    case 'radio':
    case 'checkbox':
      // A group named by the label, so a choice with a label of its own still says what it answers.
      return (
        <fieldset className="ck-field ck-fieldset">
          <legend className="label">{element.label}</legend>
          {control.type === 'radio' ? (
            <RadioView element={control} interaction={interaction} field={field} />
          ) : (
            <CheckboxView element={control} interaction={interaction} field={field} />
          )}
          {hint ? (
            <span id={hintId} className="ck-hint">
              {hint}
            </span>
          ) : null}
        </fieldset>
      );
  }
}
