import { Color } from '@kurkle/color';

/** True for a CSS colour the canvas understands (names, `transparent`, hex, rgb(a), hsl(a)); Chart.js's own parser decides. */
export const isColor = (value: string): boolean => new Color(value).valid;

/** A colour with another alpha, as rgba(): scheme colours for filled lines and areas. */
export const colorOf = (color: string, alpha: number): string => new Color(color).alpha(alpha).rgbString();
