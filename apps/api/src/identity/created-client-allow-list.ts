import { MAX_ALLOWED_CLIENTS, type ApiKeyRepository } from '@service/auth';
import { ConflictError } from '@service/http';
import type { RestPrincipal } from '../rest/rest-pipeline.ts';

/** Why a client create can answer 409 besides a running idempotent retry (stated in the OpenAPI document). */
export const ALLOW_LIST_FULL =
  `The key adds the clients it creates to its allow-list and that list is full (${MAX_ALLOWED_CLIENTS} ` +
  'clients): nothing was created (`conflict`).';

/**
 * What happens in the transaction that creates a client: a key created with `addsCreatedClients`
 * puts the new client on its own allow-list, so a CI job can go on to import into a report of it.
 * Why before the commit: a list that cannot take it (full) refuses the create instead of leaving a
 * client the key cannot edit. Sessions have no allow-list.
 */
export function allowCreatedClients(apiKeys: ApiKeyRepository) {
  return async (principal: RestPrincipal, clientId: string): Promise<void> => {
    if (!principal.keyId || !principal.addsCreatedClients) return;
    const outcome = await apiKeys.allowCreatedClient(principal.organizationId, principal.keyId, clientId);
    if (outcome === 'full')
      throw new ConflictError(
        `This key's client allow-list is full (${MAX_ALLOWED_CLIENTS} clients), so it cannot take the client ` +
          'it would create; nothing was created. Remove clients from the list on the API keys page, or use another key.',
      );
  };
}
