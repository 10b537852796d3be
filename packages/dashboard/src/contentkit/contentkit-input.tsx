import type { InputControlElement, InputElement } from '@portico/runtime/contentkit';
import { ButtonView } from './contentkit-button';
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

/**
 * An `input` element: its label names its control and its hint describes it. GitBook's
 * integrations also put a button where the control goes (shown under the label, which then heads
 * it), and leave the label empty for a control that stands alone (named as a bare control is).
 */
export function InputView({ element, interaction }: { element: InputElement; interaction: Interaction }) {
  const hintId = useHintId();
  const hint = element.hint !== undefined ? <InlineText>{element.hint}</InlineText> : undefined;
  const control = element.element;
  const labelled = element.label.trim() !== '';
  const field: Field | undefined = labelled ? { label: element.label, ...(hint ? { hint, hintId } : {}) } : undefined;
  if (control.type === 'button' || field === undefined) {
    return (
      <div className="ck-field">
        {labelled ? <span className="label">{element.label}</span> : null}
        {control.type === 'button' ? (
          <ButtonView element={control} interaction={interaction} />
        ) : (
          <BareControl control={control} interaction={interaction} />
        )}
        {hint ? <span className="ck-hint">{hint}</span> : null}
      </div>
    );
  }
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

/** A control without a label of its own: named as a bare control is (placeholder, state key, own label). */
function BareControl({ control, interaction }: { control: InputControlElement; interaction: Interaction }) {
  switch (control.type) {
    case 'textinput':
      return <TextInputView element={control} interaction={interaction} />;
    case 'select':
      return <SelectView element={control} interaction={interaction} />;
    case 'switch':
      return <SwitchView element={control} interaction={interaction} />;
    case 'radio':
      return <RadioView element={control} interaction={interaction} />;
    case 'checkbox':
      return <CheckboxView element={control} interaction={interaction} />;
  }
}
