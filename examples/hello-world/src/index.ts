// A component with state and actions (spec 2.4, 6.3): a greeting block whose buttons count
// hellos. The greeting text is the organization's setting (its account configuration): a block in
// a space reads it from the organization installation its space installation belongs to.
import { createComponent, createIntegration } from '@portico/runtime';

type GreetingProps = { name?: string };
type GreetingState = { count: number };

const greeting = createComponent<GreetingProps, GreetingState>({
  componentId: 'greeting',
  initialState: () => ({ count: 0 }),
  async action(element, action) {
    switch (action.action) {
      case 'say-hello':
        return { state: { count: element.state.count + 1 } };
      case 'reset':
        return { state: { count: 0 } };
      default:
        return {};
    }
  },
  async render(element, context) {
    const environment = context.environment;
    // (An environment from an older platform may lack `installation`: then the place's own configuration.)
    const account =
      environment.target === 'organization'
        ? environment.configuration
        : (environment.installation?.configuration ?? environment.configuration);
    const text = String(account.greeting ?? 'Hello');
    const { count } = element.state;
    return {
      type: 'block',
      children: [
        { type: 'text', style: 'bold', children: `${text}, ${element.props.name ?? 'reader'}!` },
        { type: 'text', children: count === 1 ? 'You said hello once.' : `You said hello ${count} times.` },
        {
          type: 'hstack',
          children: [
            { type: 'button', label: 'Say hello', style: 'primary', onPress: { action: 'say-hello' } },
            { type: 'button', label: 'Reset', style: 'secondary', onPress: { action: 'reset' }, disabled: count === 0 },
          ],
        },
      ],
    };
  },
});

export default createIntegration({
  components: [greeting],
  events: {
    async installation_setup(event, context) {
      console.log(`hello-world: installation ${context.environment.id} is ${event.status}`);
    },
  },
});
