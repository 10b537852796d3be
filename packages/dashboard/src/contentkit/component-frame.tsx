import { ErrorNote } from '../components/error-note';
import { Loading } from '../components/loading';
import { ContentKitRootView } from './contentkit-root';
import { useComponent } from './use-component';

/** A component of an installation, rendered and interactive; an error instead of a blank when it fails. */
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
      {view.loading ? <Loading label={`Rendering ${title}`} /> : null}
      {view.error ? <ErrorNote title={`${title} could not be shown`} error={view.error} /> : null}
      {view.root ? <ContentKitRootView root={view.root} interaction={view} /> : null}
    </div>
  );
}
