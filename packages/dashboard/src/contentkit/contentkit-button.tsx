import type { ButtonElement } from '@portico/runtime/contentkit';
import { Button, Tooltip, TooltipTrigger } from 'react-aria-components';
import type { Interaction } from './interaction';
import { resolve } from './state-bindings';

/** A button; its `tooltip` shows on hover and focus, and describes it to assistive technology. */
export function ButtonView({ element, interaction }: { element: ButtonElement; interaction: Interaction }) {
  const button = (
    <Button
      className={`button ${element.style ?? 'secondary'}`}
      isDisabled={resolve(element.disabled, interaction.read) === true || interaction.busy}
      onPress={() => interaction.press(element.onPress)}
    >
      {element.label}
    </Button>
  );
  if (!element.tooltip) return button;
  return (
    <TooltipTrigger delay={300}>
      {button}
      <Tooltip className="ck-tooltip" offset={6}>
        {element.tooltip}
      </Tooltip>
    </TooltipTrigger>
  );
}
