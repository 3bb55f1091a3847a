/** The config's `tracing` section as this folder reads it (config/sections/tracing-schema.ts declares it). */
export interface TracingSettings {
  enabled?: boolean;
  endpoint?: string;
  protocol?: 'http/protobuf' | 'http/json';
  headers: Record<string, string>;
  serviceName?: string;
  sampleRatio?: number;
}

/** What the exporter is started with; a field left undefined is read by the SDK from its OTEL_* variable. */
export interface TracingOptions {
  protocol: 'http/protobuf' | 'http/json';
  /** the traces URL (<endpoint>/v1/traces); undefined: the exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT */
  url?: string;
  headers: Record<string, string>;
  serviceName: string;
  serviceVersion: string;
  /** parent-based ratio; undefined: OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, else every trace */
  sampleRatio?: number;
}

const PROTOCOLS = ['http/protobuf', 'http/json'] as const;

/**
 * Tracing's settings from the config, each falling back to its standard variable: undefined when
 * tracing is off, a fault (a sentence naming the setting) when it cannot be done as asked.
 */
export function resolveTracing(settings: TracingSettings, version: string, env: NodeJS.ProcessEnv = process.env): TracingOptions | { fault: string } | undefined {
  const endpointVariable = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  // OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none are the standard's off switches for an endpoint set for other services
  const disabledByEnv = env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none';
  const enabled = settings.enabled ?? (Boolean(endpointVariable) && !disabledByEnv);
  if (!enabled) return undefined;
  const protocol = settings.protocol ?? (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf');
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
    return { fault: `OTEL_EXPORTER_OTLP_PROTOCOL: herald exports traces over ${PROTOCOLS.join(' or ')}, not "${protocol}"` };
  }
  return {
    protocol: protocol as TracingOptions['protocol'],
    ...(settings.endpoint && { url: `${settings.endpoint.replace(/\/+$/, '')}/v1/traces` }),
    headers: settings.headers,
    serviceName: settings.serviceName ?? (env.OTEL_SERVICE_NAME || 'herald'),
    serviceVersion: version,
    ...(settings.sampleRatio !== undefined && { sampleRatio: settings.sampleRatio }),
  };
}

/** the OTLP/HTTP exporter's default when no endpoint is set anywhere (the exporter spec's) */
const DEFAULT_TRACES_URL = 'http://localhost:4318/v1/traces';

/**
 * Where spans go and how, as the start tells the operator: the traces URL the exporter posts to
 * (the config's, else the standard variables' as the exporter reads them) without any userinfo or
 * query, and the protocol. Never the headers: they carry the collector's keys.
 */
export function tracingDestination(options: TracingOptions, env: NodeJS.ProcessEnv = process.env): { endpoint: string; protocol: TracingOptions['protocol'] } {
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : undefined;
  const url = options.url ?? (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || base || DEFAULT_TRACES_URL);
  let shown = url;
  try {
    const parsed = new URL(url);
    parsed.username = parsed.password = parsed.search = '';
    shown = parsed.toString();
  } catch {
    // not a URL: the exporter will say so; shown as configured
  }
  return { endpoint: shown, protocol: options.protocol };
}

/** the start's line about tracing: on, where its spans go, sampled how */
export function tracingLine(options: TracingOptions, env: NodeJS.ProcessEnv = process.env): string {
  const { endpoint, protocol } = tracingDestination(options, env);
  const sampled = options.sampleRatio !== undefined ? `, ${Math.round(options.sampleRatio * 1000) / 10}% of traces sampled` : '';
  return `tracing: on, spans to ${endpoint} (OTLP ${protocol}) as service "${options.serviceName}"${sampled}`;
}
