import { ErrorNote } from '../components/error-note';
import { Loading } from '../components/loading';
import { ContentKitRootView } from './contentkit-root';
import { useComponent } from './use-component';

/**
 * A component of an installation, rendered and interactive; an error instead of a blank when it
 * fails. When an action ends the interaction (`complete`), a status says so and the component
 * starts again from its first render.
 */
export function ComponentFrame({
  installationId,
  componentId,
  title,
  props,
}: {
  installationId: string;
  componentId: string;
  title: string;
  props?: Record<string, unknown>;
}) {
  const view = useComponent(installationId, componentId, props);
  return (
    <div className="component-frame" data-component={componentId}>
      <p role="status" className={view.completions > 0 ? 'ck-done' : 'visually-hidden'}>
        {view.completions > 0 ? `${title}: done.` : ''}
      </p>
      {view.loading ? <Loading label={`Rendering ${title}`} /> : null}
      {view.error ? <ErrorNote title={`${title} could not be shown`} error={view.error} /> : null}
      {view.root ? <ContentKitRootView root={view.root} interaction={view} /> : null}
    </div>
  );
}
