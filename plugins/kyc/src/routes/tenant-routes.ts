import type { Request, Response } from 'express';
import {
  isGatewayError,
  type Clock,
  type Database,
  type RouteRegistrar,
} from '../../../../gateway/src/plugin-api.ts';
import { kycErrors } from '../errors.ts';
import type { InitiationMetrics } from '../service/initiation-metrics.ts';
import type { VerificationService } from '../service/verification/verification-service.ts';
import { usageOfKeyTenant } from '../service/tenants.ts';
import { apiKeyOf } from './api-key-authentication.ts';
import {
  IDEMPOTENCY_KEY_PATTERN,
  InitiateRequestSchema,
  VerificationIdParamsSchema,
} from '../domain/api-schemas.ts';

/**
 * The tenant-facing API (README, "For tenants: the API"), at paths tenants rely on. Exempt from the two-layer
 * gate: tenants authenticate with `X-Api-Key` in each route's `authenticate` step.
 */
export function registerTenantRoutes(
  routes: RouteRegistrar,
  deps: {
    authenticate: (req: Request, res: Response) => Promise<void>;
    verifications: VerificationService;
    db: Database;
    clock: Clock;
    initiations: InitiationMetrics;
  },
): void {
  routes.add({
    method: 'POST',
    path: '/api/v1/kyc/initiate',
    exempt: true,
    authenticate: deps.authenticate,
    schema: { body: InitiateRequestSchema },
    handler: async (req, res, { body }) => {
      const header = req.headers['idempotency-key'];
      if (header !== undefined && (typeof header !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(header))) {
        throw kycErrors.create('kyc.idempotency_key.invalid');
      }
      const result = await deps.verifications
        .initiate({ key: apiKeyOf(req), request: body, idempotencyKey: header })
        .catch((err: unknown) => {
          if (isGatewayError(err) && err.code === 'kyc.quota_exhausted')
            deps.initiations.record('quota_exhausted');
          throw err;
        });
      deps.initiations.record(result.replayed ? 'replayed' : 'created');
      if (result.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.setHeader('Location', `/api/v1/kyc/${result.body.id}`);
      res.status(result.status).json(result.body);
    },
  });

  // Declared before `/:id` reads as a route of its own; the router prefers the static segment anyway.
  routes.add({
    method: 'GET',
    path: '/api/v1/kyc/usage',
    exempt: true,
    authenticate: deps.authenticate,
    handler: async (req, res) => {
      res.json(await usageOfKeyTenant(deps, apiKeyOf(req).tenant.id));
    },
  });

  routes.add({
    method: 'GET',
    path: '/api/v1/kyc/:id',
    exempt: true,
    authenticate: deps.authenticate,
    schema: { params: VerificationIdParamsSchema },
    handler: async (req, res, { params }) => {
      const json = await deps.verifications.getJson(apiKeyOf(req).tenant.id, params.id);
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(json);
    },
  });
}
