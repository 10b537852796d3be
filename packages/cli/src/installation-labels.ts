import type { ApiClient } from './api-client.js';

interface InstallationRead {
  id: string;
  integration: string;
  target: { type: string; id: string };
  status: string;
}

/**
 * How installations are named in the terminal: `webhook in space docs (inst_…)`, read once per
 * installation; its id alone when it cannot be read.
 */
export class InstallationLabels {
  private readonly known = new Map<string, Promise<string>>();

  constructor(private readonly client: ApiClient) {}

  label(id: string): Promise<string> {
    let found = this.known.get(id);
    if (found === undefined) {
      found = this.client.call(this.client.portico.GET('/v1/installations/{id}', { params: { path: { id } } })).then(
        (installation) => describe(installation),
        () => id,
      );
      this.known.set(id, found);
    }
    return found;
  }

  /** Keeps a label already known (from an installation read elsewhere). */
  remember(installation: InstallationRead): void {
    this.known.set(installation.id, Promise.resolve(describe(installation)));
  }
}

const describe = (installation: InstallationRead) =>
  `${installation.integration} in ${installation.target.type} ${installation.target.id} (${installation.id})`;

export type { InstallationRead };
