import type { RouteRegistrar } from '../../../../../gateway/src/plugin-api.ts';
import {
  findResourceType,
  findSchema,
  resourceType,
  resourceTypes,
  schema,
  schemas,
  serviceProviderConfig,
} from '../../domain/scim/discovery.ts';
import type { Locations } from '../../domain/scim/render.ts';
import { listResponse } from '../../domain/scim/render.ts';
import { authErrors } from '../../errors.ts';
import type { ScimRouteOptions } from './scim-routes.ts';
import { SCIM_BASE_PATH, sendScim } from './scim-wire.ts';

/**
 * What the SCIM service provider supports (RFC 7644, section 4): ServiceProviderConfig, ResourceTypes and
 * Schemas, behind the same bearer token as the resources.
 */
export function registerScimDiscoveryRoutes(
  routes: RouteRegistrar,
  common: ScimRouteOptions,
  locations: Locations,
): void {
  const notFound = () =>
    authErrors.create('auth.scim.not_found', { detail: 'No such schema or resource type' });

  routes.add({
    ...common,
    method: 'GET',
    path: `${SCIM_BASE_PATH}/ServiceProviderConfig`,
    handler: (_req, res) => sendScim(res, 200, serviceProviderConfig(locations)),
  });
  routes.add({
    ...common,
    method: 'GET',
    path: `${SCIM_BASE_PATH}/ResourceTypes`,
    handler: (_req, res) => {
      const all = resourceTypes(locations);
      sendScim(res, 200, listResponse(all.length, 1, all));
    },
  });
  routes.add({
    ...common,
    method: 'GET',
    path: `${SCIM_BASE_PATH}/ResourceTypes/:name`,
    handler: (_req, res, { params }) => {
      const found = findResourceType(params.name ?? '');
      if (!found) throw notFound();
      sendScim(res, 200, resourceType(found, locations));
    },
  });
  routes.add({
    ...common,
    method: 'GET',
    path: `${SCIM_BASE_PATH}/Schemas`,
    handler: (_req, res) => {
      const all = schemas(locations);
      sendScim(res, 200, listResponse(all.length, 1, all));
    },
  });
  routes.add({
    ...common,
    method: 'GET',
    path: `${SCIM_BASE_PATH}/Schemas/:id`,
    handler: (_req, res, { params }) => {
      const found = findSchema(params.id ?? '');
      if (!found) throw notFound();
      sendScim(res, 200, schema(found, locations));
    },
  });
}
