import type { StepperElement } from '@portico/runtime/contentkit';
import { ContentKitChildren } from './contentkit-element';
import type { Interaction } from './interaction';
import { resolve } from './state-bindings';

/**
 * A stepper: the list of steps, the active one marked as the current step, and the active step's
 * content in a region named by its title. `activeStep` (an id, or a `{ $state }` binding) picks it;
 * the first step when it names none of them.
 */
export function StepperView({ element, interaction }: { element: StepperElement; interaction: Interaction }) {
  const wanted = resolve(element.activeStep, interaction.read);
  const active = element.children.find((step) => step.id === wanted) ?? element.children[0];
  return (
    <div className="ck-stepper">
      <ol className="ck-steps" aria-label="Steps">
        {element.children.map((step) => (
          <li key={step.id} aria-current={step === active ? 'step' : undefined}>
            {step.title}
          </li>
        ))}
      </ol>
      {active ? (
        <section className="ck-step" aria-label={active.title}>
          <ContentKitChildren elements={active.children} interaction={interaction} />
        </section>
      ) : null}
    </div>
  );
}
