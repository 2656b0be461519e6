import { op } from '../context';
import { quickChartEndpoint } from '../quickchart';

export const quickChart = op('QuickChart-compatible chart rendering (GET with query parameters, or POST)', async ({ ctx, request, rawBody }) =>
  quickChartEndpoint(ctx, request, rawBody),
);
