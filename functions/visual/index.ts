import type { ServiceDefinition } from '../../shared/functions';

const BANNER = 'Visual rendering service\nPOST /visual/api/v1/charts/render, /infographics/generate, /presentations/generate, /diagrams/render\n';

export const visual: ServiceDefinition = {
  name: 'visual',
  functions: [
    {
      kind: 'http',
      name: 'visual-banner',
      route: 'visual/{*rest}',
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
      handler: async () => ({ status: 200, body: BANNER, headers: { 'Content-Type': 'text/plain; charset=utf-8' } }),
    },
  ],
};
