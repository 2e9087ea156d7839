// Types of what scripts/start.mjs exports, for the tests that import it.
import type { PreviewServer } from 'vite';

export function securityHeaders(indexHtml: string): Record<string, string>;
export function serve(options: { root: string; port: number; configFile?: false }): Promise<PreviewServer>;
export const PERMISSIONS_POLICY: string;
