/**
 * Where a provider generator's calls go, from `base_url` as people write it: each provider's
 * paths are added to one form of it, and both forms are accepted (docs/providers.md). The
 * generators call this address; the estimate counts a rate limit per address.
 */

/** The providers' own addresses, in the form their paths are added to. */
export const PROVIDER_BASE_URLS = { openai: "https://api.openai.com/v1", anthropic: "https://api.anthropic.com" } as const;

export type Provider = keyof typeof PROVIDER_BASE_URLS;

/**
 * OpenAI-compatible paths start at the API's version, `/v1` on OpenAI, Ollama, vLLM and LM Studio:
 * a base_url that is a server's address alone (`http://localhost:11434`) gets `/v1`; one with a
 * path (`.../v1`, OpenRouter's `/api/v1`, Azure's `/openai/deployments/NAME`) is taken as written.
 */
export function openaiRoot(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return url.pathname === "/" && url.search === "" && url.hash === "" ? `${baseUrl}/v1` : baseUrl;
  } catch {
    return baseUrl; // not a URL: the call says so
  }
}

/**
 * Anthropic's paths carry their version (`/v1/messages`), so base_url is the address before it; one
 * written with the `/v1` an OpenAI-style address has (`https://api.anthropic.com/v1`) loses it,
 * instead of asking for `/v1/v1/messages`.
 */
export function anthropicRoot(baseUrl: string): string {
  return baseUrl.replace(/\/v1$/, "");
}

/** The address a provider's calls go to, from base_url as written (trailing slashes and all), or the provider's own. */
export function providerEndpoint(provider: Provider, baseUrl: string | undefined): string {
  const root = provider === "openai" ? openaiRoot : anthropicRoot;
  return root((baseUrl ?? PROVIDER_BASE_URLS[provider]).replace(/\/+$/, ""));
}
