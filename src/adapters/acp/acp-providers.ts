import * as acp from '@agentclientprotocol/sdk';
import type { SessionOptions } from '../../agent/agent.js';
import { modelProviderOf } from '../../model/model-providers.js';
import type { ResolvedLanguageModel } from '../../model/resolve-model.js';
import { ROUTE_PROTOCOLS, type ModelRoute, type RouteProtocol } from '../../model/routed-model.js';
import type { AcpAgentSettings } from './acp-agent-settings.js';
import type { SetProviderParams } from './provider-requests.js';

/** The one provider: the model the agent runs on (the configured one, or a session's pick). */
export const MAIN_PROVIDER = 'main';

/** The endpoints the native providers call when no base URL is configured (the SDKs' defaults). */
const NATIVE_ENDPOINTS: Record<string, string> = {
  anthropic: 'https://api.anthropic.com/v1',
  openai: 'https://api.openai.com/v1',
  google: 'https://generativelanguage.googleapis.com/v1beta',
};
/** The protocol each kind of provider speaks, as ACP names it (`_google`: a custom name, as the schema asks). */
const PROTOCOL_OF_KIND: Record<string, string> = { anthropic: 'anthropic', openai: 'openai', 'openai-compatible': 'openai', google: '_google' };

/** `ProviderInfo` of the unstable v1 schema. */
export interface AcpProviderInfo {
  providerId: string;
  supported: string[];
  required: boolean;
  current?: { apiType: string; baseUrl: string } | null;
}

/**
 * One connection's unstable `providers/*` (ACP v1): the client may route the agent's model calls
 * through its own endpoint and headers. The route lives here, in memory, for this connection: it
 * is handed to the core per turn as a model for each step (`stepModel`), never written to the
 * config or a session, and its headers (credentials) are never listed, logged or echoed.
 */
export class AcpProviders {
  private route: ModelRoute | undefined;
  /** The routed model per session choice, rebuilt when the route changes. */
  private models = new Map<string, Promise<ResolvedLanguageModel>>();

  constructor(private readonly settings: AcpAgentSettings) {}

  /** Whether the face can route at all: a model that speaks HTTP, and settings that resolve routed models. */
  available(): boolean {
    return Boolean(this.settings.routeModel) && this.ownKind() !== undefined;
  }

  /** `providers/list`: the main provider with its protocols and where its calls go now (no header values). */
  list(): { providers: AcpProviderInfo[] } {
    const kind = this.ownKind();
    if (!this.available() || !kind) return { providers: [] };
    const own = { apiType: PROTOCOL_OF_KIND[kind]!, baseUrl: this.settings.model.baseURL ?? modelProviderOf(this.settings.model.spec)?.baseURL ?? NATIVE_ENDPOINTS[kind]! };
    const current = this.route ? { apiType: this.route.protocol, baseUrl: this.route.baseURL } : own;
    return { providers: [{ providerId: MAIN_PROVIDER, supported: [...ROUTE_PROTOCOLS], required: false, current }] };
  }

  /** `providers/set`: the next model step of every session on this connection goes to the client's endpoint. */
  set(params: SetProviderParams): void {
    this.check(params.providerId);
    if (!(ROUTE_PROTOCOLS as readonly string[]).includes(params.apiType)) {
      throw acp.RequestError.invalidParams(
        { code: 'unsupported_api_type', apiType: params.apiType, supported: [...ROUTE_PROTOCOLS] },
        `apiType "${params.apiType}" is not supported by provider "${MAIN_PROVIDER}": use one of ${ROUTE_PROTOCOLS.join(', ')}`,
      );
    }
    this.route = { protocol: params.apiType as RouteProtocol, baseURL: params.baseUrl, headers: { ...params.headers } };
    this.models = new Map();
  }

  /** `providers/disable`: the client's route is dropped; calls go where the agent's configuration says again. */
  disable(providerId: string): void {
    this.check(providerId);
    this.route = undefined;
    this.models = new Map();
  }

  /** The core's per-step model (`ProcessOptions.stepModel`): the session's pick, routed while a route is set; else `undefined` (its own). */
  readonly stepModel = async (options: SessionOptions | undefined): Promise<ResolvedLanguageModel | undefined> => {
    const route = this.route;
    if (!route || !this.settings.routeModel) return undefined;
    const choice = options?.model;
    const key = choice ?? '';
    let model = this.models.get(key);
    if (!model) {
      model = this.settings.routeModel(choice, route);
      this.models.set(key, model);
      model.catch(() => this.models.get(key) === model && this.models.delete(key));
    }
    return model;
  };

  private check(providerId: string): void {
    if (!this.available()) {
      throw acp.RequestError.invalidParams(
        { code: 'no_routable_provider' },
        'No provider to route: the configured model runs in-process or is not a provider:model spec; configure an HTTP model (e.g. --model anthropic:MODEL)',
      );
    }
    if (providerId !== MAIN_PROVIDER) {
      throw acp.RequestError.invalidParams(
        { code: 'unknown_provider', providerId },
        `Unknown provider "${providerId}": use "${MAIN_PROVIDER}" (see providers/list)`,
      );
    }
  }

  /** The kind of provider the configured model speaks through, when it speaks HTTP. */
  private ownKind(): string | undefined {
    const kind = modelProviderOf(this.settings.model.spec)?.kind;
    return kind && kind !== 'llama-cpp' ? kind : undefined;
  }
}
