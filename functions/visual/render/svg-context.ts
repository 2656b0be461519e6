/**
 * A 2D drawing context that writes SVG elements as Chart.js draws: every fill and stroke is a
 * `<path>` (or `<rect>`), every text a `<text>` naming its font, clips are `<clipPath>`s. Text is
 * measured by a real canvas with the same fonts (@napi-rs/canvas), so Chart.js lays the chart out
 * exactly as on a raster; nothing looks a glyph up per text, which is what made Skia's SVG canvas
 * cost a third of an SVG render. The output is a standalone SVG document with width, height and
 * viewBox, deterministic (clip ids count from 1), every string escaped.
 *
 * What it does not draw: images (`drawImage`: nothing from JSON makes one), shadows, composite
 * operations other than source-over, and a clearRect that does not cover the whole canvas (Chart.js
 * only clears the whole canvas, which starts the document again: a kept chart redraws on it).
 */
import { Color } from '@kurkle/color';
import type { SKRSContext2D } from '@napi-rs/canvas';
import { MAX_SVG_BYTES, SvgTooLargeError } from './tasks';

type Matrix = [number, number, number, number, number, number];
type Baseline = SKRSContext2D['textBaseline'];
type Align = SKRSContext2D['textAlign'];
type Metrics = ReturnType<SKRSContext2D['measureText']>;
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

interface Paint {
  /** `#rrggbb`, or undefined for a paint that draws nothing (transparent, or not a colour). */
  color?: string;
  alpha: number;
}

interface State {
  fillStyle: string;
  strokeStyle: string;
  fill: Paint;
  stroke: Paint;
  lineWidth: number;
  lineCap: string;
  lineJoin: string;
  miterLimit: number;
  /** Replaced, never changed in place (setLineDash), so a saved state shares it. */
  lineDash: readonly number[];
  lineDashOffset: number;
  globalAlpha: number;
  font: string;
  textAlign: string;
  textBaseline: string;
  matrix: Matrix;
  /** The id of the clip in force (its `<clipPath>` intersects the clips before it), or 0. */
  clip: number;
}

const paints = new Map<string, Paint | null>();
/** Fonts (and baseline shifts) remembered per context. */
const CACHED_FONTS = 200;
/**
 * Text measures remembered per context: Chart.js measures every label several times per draw and
 * a kept context draws the same labels chart after chart, while each native measure (parsing the
 * font, a metrics object from the addon) took 7 % of an SVG chart's drawing in a profile.
 */
const CACHED_MEASURES = 2000;

/** A CSS colour as SVG 1.1 paint (hex and a separate opacity: rgba() in an attribute is SVG 2 only); null when it is not a colour. */
function paintOf(value: string): Paint | null {
  let paint = paints.get(value);
  if (paint === undefined) {
    const color = new Color(value);
    if (color.valid) {
      const { r, g, b, a } = color.rgb;
      paint = { color: a > 0 ? `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}` : undefined, alpha: a };
    } else paint = null;
    if (paints.size > 1000) paints.clear();
    paints.set(value, paint);
  }
  return paint;
}

/**
 * Numbers as SVG writes them: at most two decimals, no "-0". A number that is not finite (a text
 * placed at NaN when a scale's range overflowed) is never written: "NaN" makes the document
 * unreadable, so the chart is refused instead (the draw fails, which answers 400 CHART_NOT_RENDERABLE).
 */
const num = (n: number): string => {
  const r = Math.round(n * 100) / 100;
  if (!Number.isFinite(r)) throw new Error('a position or size would not be a finite number (a value or an option too large to draw)');
  return r === 0 ? '0' : String(r);
};

/**
 * Text and attribute values as XML: the five special characters escaped, and the characters XML
 * cannot hold (controls other than tab, line feed and carriage return; lone surrogates; U+FFFE,
 * U+FFFF) dropped. Tab, line feed and carriage return become spaces, as a canvas draws them.
 */
export function xmlText(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        out += text[i] + text[i + 1];
        i++;
      }
      continue;
    }
    if (code >= 0xdc00 && code <= 0xdfff) continue;
    if (code === 0x26) out += '&amp;';
    else if (code === 0x3c) out += '&lt;';
    else if (code === 0x3e) out += '&gt;';
    else if (code === 0x22) out += '&quot;';
    else if (code === 0x27) out += '&#39;';
    else if (code === 0x09 || code === 0x0a || code === 0x0d || code === 0x0c) out += ' ';
    else if (code < 0x20 || code === 0xfffe || code === 0xffff) continue;
    else out += text[i];
  }
  return out;
}

interface Font {
  style: string;
  weight: string;
  size: number;
  /** The family list as written into the SVG. */
  family: string;
}

/**
 * A CSS font shorthand as Chart.js writes it (`[style] [weight] <size>px <family list>`), read
 * without a regular expression. `familyOf` maps the list to what the SVG names.
 */
function parseFont(font: string, familyOf: (list: string) => string): Font {
  const tokens = font.trim().split(' ');
  let style = 'normal';
  let weight = 'normal';
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.endsWith('px') || token.includes('px/')) {
      const size = Number.parseFloat(token);
      return { style, weight, size: Number.isFinite(size) ? size : 10, family: familyOf(tokens.slice(i + 1).join(' ')) };
    }
    if (token === 'italic' || token === 'oblique') style = token;
    else if (token === 'bold' || token === 'bolder' || token === 'lighter' || /^[1-9]00$/.test(token)) weight = token;
  }
  return { style, weight, size: 10, family: familyOf('sans-serif') };
}

/** The canvas Chart.js is given: its size, and this context. */
export interface SvgCanvasItem {
  width: number;
  height: number;
  getContext(kind: '2d'): SvgContext;
}

export class SvgContext {
  readonly canvas: SvgCanvasItem;
  private state: State;
  private stack: State[] = [];
  private body: string[] = [];
  private defs: string[] = [];
  private clips = 0;
  /** The clip of the `<g>` now open in the body (0: none open). */
  private openClip = 0;
  /** Characters written into the body and the clips since the document started: writing stops past MAX_SVG_BYTES. */
  private written = 0;
  private path: string[] = [];
  private pathStart: [number, number] | undefined;
  private pathCurrent: [number, number] | undefined;
  private readonly fonts = new Map<string, Font>();
  private readonly baselines = new Map<string, number>();
  private readonly measures = new Map<string, Metrics>();

  constructor(
    width: number,
    height: number,
    /** A raster context with the same fonts registered: the metrics Chart.js lays text out with. */
    private readonly measurer: SKRSContext2D,
    /** The family list an SVG `font-family` names for a CSS family list. */
    private readonly familyOf: (list: string) => string,
  ) {
    this.canvas = { width, height, getContext: () => this };
    this.state = SvgContext.initialState();
  }

  private static initialState(): State {
    return {
      fillStyle: '#000000',
      strokeStyle: '#000000',
      fill: { color: '#000000', alpha: 1 },
      stroke: { color: '#000000', alpha: 1 },
      lineWidth: 1,
      lineCap: 'butt',
      lineJoin: 'miter',
      miterLimit: 10,
      lineDash: [],
      lineDashOffset: 0,
      globalAlpha: 1,
      font: '10px sans-serif',
      textAlign: 'start',
      textBaseline: 'alphabetic',
      matrix: IDENTITY,
      clip: 0,
    };
  }

  /** Starts the document again: nothing drawn, the initial state. */
  reset(): void {
    this.state = SvgContext.initialState();
    this.stack = [];
    this.body = [];
    this.defs = [];
    this.clips = 0;
    this.openClip = 0;
    this.written = 0;
    this.path = [];
    this.pathStart = this.pathCurrent = undefined;
  }

  /** Counts what is about to be written; past MAX_SVG_BYTES the drawing stops (a character is at least a byte). */
  private count(text: string): void {
    this.written += text.length;
    if (this.written > MAX_SVG_BYTES) throw new SvgTooLargeError("The chart's SVG");
  }

  /** The SVG document drawn so far. */
  document(): string {
    const { width, height } = this.canvas;
    const close = this.openClip ? '</g>' : '';
    const defs = this.defs.length ? `<defs>${this.defs.join('')}</defs>` : '';
    return (
      `<?xml version="1.0" encoding="UTF-8"?><svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xml:space="preserve">` +
      `${defs}${this.body.join('')}${close}</svg>`
    );
  }

  // --- state -------------------------------------------------------------------------------

  save(): void {
    // The matrix and the dash list are replaced, never changed in place: a shallow copy is the state.
    this.stack.push({ ...this.state });
  }

  restore(): void {
    const previous = this.stack.pop();
    if (previous) this.state = previous;
  }

  get fillStyle(): string {
    return this.state.fillStyle;
  }
  set fillStyle(value: string) {
    // A canvas ignores what is not a colour; gradients and patterns cannot come from JSON.
    if (typeof value !== 'string') return;
    const paint = paintOf(value);
    if (!paint) return;
    this.state.fillStyle = value;
    this.state.fill = paint;
  }
  get strokeStyle(): string {
    return this.state.strokeStyle;
  }
  set strokeStyle(value: string) {
    if (typeof value !== 'string') return;
    const paint = paintOf(value);
    if (!paint) return;
    this.state.strokeStyle = value;
    this.state.stroke = paint;
  }
  get lineWidth(): number {
    return this.state.lineWidth;
  }
  set lineWidth(value: number) {
    if (Number.isFinite(value) && value > 0) this.state.lineWidth = value;
  }
  get lineCap(): string {
    return this.state.lineCap;
  }
  set lineCap(value: string) {
    if (value === 'butt' || value === 'round' || value === 'square') this.state.lineCap = value;
  }
  get lineJoin(): string {
    return this.state.lineJoin;
  }
  set lineJoin(value: string) {
    if (value === 'miter' || value === 'round' || value === 'bevel') this.state.lineJoin = value;
  }
  get miterLimit(): number {
    return this.state.miterLimit;
  }
  set miterLimit(value: number) {
    if (Number.isFinite(value) && value > 0) this.state.miterLimit = value;
  }
  get lineDashOffset(): number {
    return this.state.lineDashOffset;
  }
  set lineDashOffset(value: number) {
    if (Number.isFinite(value)) this.state.lineDashOffset = value;
  }
  get globalAlpha(): number {
    return this.state.globalAlpha;
  }
  set globalAlpha(value: number) {
    if (Number.isFinite(value) && value >= 0 && value <= 1) this.state.globalAlpha = value;
  }
  get font(): string {
    return this.state.font;
  }
  set font(value: string) {
    if (typeof value === 'string' && value) this.state.font = value;
  }
  get textAlign(): string {
    return this.state.textAlign;
  }
  set textAlign(value: string) {
    if (['start', 'end', 'left', 'right', 'center'].includes(value)) this.state.textAlign = value;
  }
  get textBaseline(): string {
    return this.state.textBaseline;
  }
  set textBaseline(value: string) {
    if (['top', 'hanging', 'middle', 'alphabetic', 'ideographic', 'bottom'].includes(value)) this.state.textBaseline = value;
  }

  // Accepted and not drawn (see the file's comment).
  globalCompositeOperation = 'source-over';
  shadowBlur = 0;
  shadowColor = 'rgba(0, 0, 0, 0)';
  shadowOffsetX = 0;
  shadowOffsetY = 0;
  direction = 'inherit';
  imageSmoothingEnabled = true;
  drawImage(): void {}

  setLineDash(segments: number[]): void {
    if (!Array.isArray(segments) || segments.some((s) => !Number.isFinite(s) || s < 0)) return;
    this.state.lineDash = segments.length % 2 ? [...segments, ...segments] : [...segments];
  }
  getLineDash(): number[] {
    return [...this.state.lineDash];
  }

  // --- transforms ----------------------------------------------------------------------------

  private multiply(m: Matrix): void {
    const [a, b, c, d, e, f] = this.state.matrix;
    this.state.matrix = [a * m[0] + c * m[1], b * m[0] + d * m[1], a * m[2] + c * m[3], b * m[2] + d * m[3], a * m[4] + c * m[5] + e, b * m[4] + d * m[5] + f];
  }
  translate(x: number, y: number): void {
    this.multiply([1, 0, 0, 1, x, y]);
  }
  scale(x: number, y: number): void {
    this.multiply([x, 0, 0, y, 0, 0]);
  }
  rotate(angle: number): void {
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    this.multiply([cos, sin, -sin, cos, 0, 0]);
  }
  transform(a: number, b: number, c: number, d: number, e: number, f: number): void {
    this.multiply([a, b, c, d, e, f]);
  }
  setTransform(
    a: number | { a: number; b: number; c: number; d: number; e: number; f: number },
    b?: number,
    c?: number,
    d?: number,
    e?: number,
    f?: number,
  ): void {
    this.state.matrix = typeof a === 'object' ? [a.a, a.b, a.c, a.d, a.e, a.f] : [a, b!, c!, d!, e!, f!];
  }
  resetTransform(): void {
    this.state.matrix = IDENTITY;
  }
  getTransform(): { a: number; b: number; c: number; d: number; e: number; f: number } {
    const [a, b, c, d, e, f] = this.state.matrix;
    return { a, b, c, d, e, f };
  }

  /** A point in user space, in canvas (device) coordinates. */
  private at(x: number, y: number): [number, number] {
    const [a, b, c, d, e, f] = this.state.matrix;
    return [a * x + c * y + e, b * x + d * y + f];
  }

  /** How much the transform scales lengths (line widths, dashes). */
  private scaleOfMatrix(): number {
    const [a, b, c, d] = this.state.matrix;
    return Math.sqrt(Math.abs(a * d - b * c));
  }

  // --- paths ---------------------------------------------------------------------------------

  beginPath(): void {
    this.path = [];
    this.pathStart = this.pathCurrent = undefined;
  }

  moveTo(x: number, y: number): void {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return;
    const p = this.at(x, y);
    this.path.push(`M${num(p[0])} ${num(p[1])}`);
    this.pathStart = this.pathCurrent = p;
  }

  lineTo(x: number, y: number): void {
    if (!Number.isFinite(x) || !Number.isFinite(y)) return;
    if (!this.pathCurrent) return this.moveTo(x, y);
    const p = this.at(x, y);
    this.path.push(`L${num(p[0])} ${num(p[1])}`);
    this.pathCurrent = p;
  }

  bezierCurveTo(x1: number, y1: number, x2: number, y2: number, x: number, y: number): void {
    if (![x1, y1, x2, y2, x, y].every(Number.isFinite)) return;
    if (!this.pathCurrent) this.moveTo(x1, y1);
    const a = this.at(x1, y1);
    const b = this.at(x2, y2);
    const p = this.at(x, y);
    this.path.push(`C${num(a[0])} ${num(a[1])} ${num(b[0])} ${num(b[1])} ${num(p[0])} ${num(p[1])}`);
    this.pathCurrent = p;
  }

  quadraticCurveTo(x1: number, y1: number, x: number, y: number): void {
    if (![x1, y1, x, y].every(Number.isFinite)) return;
    if (!this.pathCurrent) this.moveTo(x1, y1);
    const a = this.at(x1, y1);
    const p = this.at(x, y);
    this.path.push(`Q${num(a[0])} ${num(a[1])} ${num(p[0])} ${num(p[1])}`);
    this.pathCurrent = p;
  }

  closePath(): void {
    if (!this.pathCurrent) return;
    this.path.push('Z');
    this.pathCurrent = this.pathStart;
  }

  rect(x: number, y: number, w: number, h: number): void {
    if (![x, y, w, h].every(Number.isFinite)) return;
    this.moveTo(x, y);
    this.lineTo(x + w, y);
    this.lineTo(x + w, y + h);
    this.lineTo(x, y + h);
    this.closePath();
    this.moveTo(x, y);
  }

  /**
   * An elliptical arc as cubic Béziers of at most a quarter turn each (within 0.03 % of the radius),
   * in user space, so any transform (rotated labels, scaled points) maps it exactly as a canvas does.
   */
  ellipse(x: number, y: number, rx: number, ry: number, rotation: number, start: number, end: number, counterclockwise = false): void {
    if (![x, y, rx, ry, rotation, start, end].every(Number.isFinite) || rx < 0 || ry < 0) return;
    const TAU = Math.PI * 2;
    // As the canvas specification: a sweep of a full turn or more is the whole ellipse; otherwise
    // the angle between start and end, taken in the drawing direction.
    const turn = (angle: number) => ((angle % TAU) + TAU) % TAU;
    let sweep = end - start;
    if (!counterclockwise) sweep = sweep >= TAU ? TAU : turn(sweep);
    else sweep = sweep <= -TAU ? -TAU : -turn(-sweep);
    const cosR = Math.cos(rotation);
    const sinR = Math.sin(rotation);
    const point = (angle: number): [number, number] => {
      const px = rx * Math.cos(angle);
      const py = ry * Math.sin(angle);
      return [x + px * cosR - py * sinR, y + px * sinR + py * cosR];
    };
    const first = point(start);
    if (this.pathCurrent) this.lineTo(first[0], first[1]);
    else this.moveTo(first[0], first[1]);
    if (sweep === 0) return;
    const segments = Math.max(1, Math.ceil(Math.abs(sweep) / (Math.PI / 2) - 1e-9));
    const step = sweep / segments;
    const k = (4 / 3) * Math.tan(step / 4);
    let angle = start;
    for (let i = 0; i < segments; i++) {
      const next = angle + step;
      const [cos1, sin1, cos2, sin2] = [Math.cos(angle), Math.sin(angle), Math.cos(next), Math.sin(next)];
      const c1 = [rx * (cos1 - k * sin1), ry * (sin1 + k * cos1)];
      const c2 = [rx * (cos2 + k * sin2), ry * (sin2 - k * cos2)];
      const p2 = point(next);
      this.bezierCurveTo(
        x + c1[0] * cosR - c1[1] * sinR,
        y + c1[0] * sinR + c1[1] * cosR,
        x + c2[0] * cosR - c2[1] * sinR,
        y + c2[0] * sinR + c2[1] * cosR,
        p2[0],
        p2[1],
      );
      angle = next;
    }
  }

  arc(x: number, y: number, radius: number, start: number, end: number, counterclockwise = false): void {
    this.ellipse(x, y, radius, radius, 0, start, end, counterclockwise);
  }

  /** arcTo as the canvas specification draws it: a line to the tangent point, then the arc. */
  arcTo(x1: number, y1: number, x2: number, y2: number, radius: number): void {
    if (![x1, y1, x2, y2, radius].every(Number.isFinite) || radius < 0) return;
    if (!this.pathCurrent) this.moveTo(x1, y1);
    const [a, b, c, d, e, f] = this.state.matrix;
    const det = a * d - b * c;
    if (!det) return this.lineTo(x1, y1);
    // The current point back in user space.
    const [cx, cy] = this.pathCurrent!;
    const x0 = (d * (cx - e) - c * (cy - f)) / det;
    const y0 = (-b * (cx - e) + a * (cy - f)) / det;
    const v1 = [x0 - x1, y0 - y1];
    const v2 = [x2 - x1, y2 - y1];
    const l1 = Math.hypot(v1[0], v1[1]);
    const l2 = Math.hypot(v2[0], v2[1]);
    const cross = v1[0] * v2[1] - v1[1] * v2[0];
    if (!l1 || !l2 || !radius || Math.abs(cross) < 1e-12) return this.lineTo(x1, y1);
    const angle = Math.acos(Math.max(-1, Math.min(1, (v1[0] * v2[0] + v1[1] * v2[1]) / (l1 * l2))));
    const tangent = radius / Math.tan(angle / 2);
    const t1 = [x1 + (v1[0] / l1) * tangent, y1 + (v1[1] / l1) * tangent];
    const t2 = [x1 + (v2[0] / l2) * tangent, y1 + (v2[1] / l2) * tangent];
    const toCentre = radius / Math.sin(angle / 2);
    const bisector = [v1[0] / l1 + v2[0] / l2, v1[1] / l1 + v2[1] / l2];
    const bl = Math.hypot(bisector[0], bisector[1]);
    const centre = [x1 + (bisector[0] / bl) * toCentre, y1 + (bisector[1] / bl) * toCentre];
    const from = Math.atan2(t1[1] - centre[1], t1[0] - centre[0]);
    const to = Math.atan2(t2[1] - centre[1], t2[0] - centre[0]);
    this.lineTo(t1[0], t1[1]);
    this.arc(centre[0], centre[1], radius, from, to, cross > 0);
  }

  roundRect(x: number, y: number, w: number, h: number, radii: number | number[] = 0): void {
    const r = Array.isArray(radii) ? (radii[0] ?? 0) : radii;
    const radius = Math.max(0, Math.min(r, Math.abs(w) / 2, Math.abs(h) / 2));
    if (!radius) return this.rect(x, y, w, h);
    this.moveTo(x + radius, y);
    this.arcTo(x + w, y, x + w, y + h, radius);
    this.arcTo(x + w, y + h, x, y + h, radius);
    this.arcTo(x, y + h, x, y, radius);
    this.arcTo(x, y, x + w, y, radius);
    this.closePath();
  }

  // --- drawing -------------------------------------------------------------------------------

  /** Puts an element into the body inside a `<g>` of the clip in force. */
  private emit(element: string): void {
    const clip = this.state.clip;
    if (clip !== this.openClip) {
      if (this.openClip) this.body.push('</g>');
      if (clip) this.body.push(`<g clip-path="url(#c${clip})">`);
      this.openClip = clip;
    }
    this.count(element);
    this.body.push(element);
  }

  private paintAttributes(kind: 'fill' | 'stroke'): string | undefined {
    const paint = kind === 'fill' ? this.state.fill : this.state.stroke;
    const alpha = paint.alpha * this.state.globalAlpha;
    if (!paint.color || alpha <= 0) return undefined;
    return alpha < 1 ? `${kind}="${paint.color}" ${kind}-opacity="${Math.round(alpha * 1000) / 1000}"` : `${kind}="${paint.color}"`;
  }

  private strokeAttributes(): string | undefined {
    const paint = this.paintAttributes('stroke');
    if (!paint) return undefined;
    const s = this.state;
    const scale = this.scaleOfMatrix();
    let out = `fill="none" ${paint} stroke-width="${num(s.lineWidth * scale)}"`;
    if (s.lineCap !== 'butt') out += ` stroke-linecap="${s.lineCap}"`;
    if (s.lineJoin !== 'miter') out += ` stroke-linejoin="${s.lineJoin}"`;
    else if (s.miterLimit !== 4) out += ` stroke-miterlimit="${num(s.miterLimit)}"`;
    if (s.lineDash.length) {
      out += ` stroke-dasharray="${s.lineDash.map((d) => num(d * scale)).join(' ')}"`;
      if (s.lineDashOffset) out += ` stroke-dashoffset="${num(s.lineDashOffset * scale)}"`;
    }
    return out;
  }

  /** The current path's data, without a last moveto that draws nothing (rect() ends with one). */
  private pathData(): string {
    const end = this.path.length && this.path[this.path.length - 1].startsWith('M') ? this.path.length - 1 : this.path.length;
    let d = '';
    for (let i = 0; i < end; i++) d += this.path[i];
    return d;
  }

  fill(rule?: unknown): void {
    const paint = this.paintAttributes('fill');
    const d = paint && this.pathData();
    if (!d) return;
    this.emit(`<path ${paint} d="${d}"${rule === 'evenodd' ? ' fill-rule="evenodd"' : ''}/>`);
  }

  stroke(): void {
    const attributes = this.strokeAttributes();
    const d = attributes && this.pathData();
    if (!d) return;
    this.emit(`<path ${attributes} d="${d}"/>`);
  }

  fillRect(x: number, y: number, w: number, h: number): void {
    const [a, b, c, d, e, f] = this.state.matrix;
    if (b === 0 && c === 0 && [x, y, w, h].every(Number.isFinite)) {
      // An axis-aligned rectangle is a <rect>.
      const paint = this.paintAttributes('fill');
      if (!paint || !w || !h) return;
      const left = Math.min(a * x + e, a * (x + w) + e);
      const top = Math.min(d * y + f, d * (y + h) + f);
      this.emit(`<rect ${paint} x="${num(left)}" y="${num(top)}" width="${num(Math.abs(a * w))}" height="${num(Math.abs(d * h))}"/>`);
      return;
    }
    const path = this.path;
    const [start, current] = [this.pathStart, this.pathCurrent];
    this.beginPath();
    this.rect(x, y, w, h);
    this.fill();
    this.path = path;
    this.pathStart = start;
    this.pathCurrent = current;
  }

  strokeRect(x: number, y: number, w: number, h: number): void {
    const path = this.path;
    const [start, current] = [this.pathStart, this.pathCurrent];
    this.beginPath();
    this.rect(x, y, w, h);
    this.stroke();
    this.path = path;
    this.pathStart = start;
    this.pathCurrent = current;
  }

  /** Clearing the whole canvas starts the document again (Chart.js clears before each draw); a partial clear is not drawn. */
  clearRect(x: number, y: number, w: number, h: number): void {
    const [a, b, c, d, e, f] = this.state.matrix;
    const identity = a === 1 && b === 0 && c === 0 && d === 1 && e === 0 && f === 0;
    if (identity && x <= 0 && y <= 0 && x + w >= this.canvas.width && y + h >= this.canvas.height) {
      this.body = [];
      this.defs = [];
      this.clips = 0;
      this.openClip = 0;
      this.written = 0;
      // Clips in force refer to definitions just dropped: drawing after a clear starts unclipped.
      this.state.clip = 0;
      for (const saved of this.stack) saved.clip = 0;
    }
  }

  clip(rule?: unknown): void {
    if (!this.path.length) return;
    const id = ++this.clips;
    const within = this.state.clip ? ` clip-path="url(#c${this.state.clip})"` : '';
    const definition = `<clipPath id="c${id}"${within}><path d="${this.pathData()}"${rule === 'evenodd' ? ' clip-rule="evenodd"' : ''}/></clipPath>`;
    this.count(definition);
    this.defs.push(definition);
    this.state.clip = id;
  }

  // --- text ----------------------------------------------------------------------------------

  private fontOf(font: string): Font {
    let parsed = this.fonts.get(font);
    if (!parsed) {
      parsed = parseFont(font, this.familyOf);
      // A kept context lives for many charts, whose fonts come from their requests: bounded.
      if (this.fonts.size >= CACHED_FONTS) this.fonts.clear();
      this.fonts.set(font, parsed);
    }
    return parsed;
  }

  /**
   * How far below the line of `textBaseline` the alphabetic baseline lies, from the measuring
   * canvas's own metrics (so text sits where a raster canvas draws it).
   */
  private baselineShift(font: string, baseline: string): number {
    if (baseline === 'alphabetic') return 0;
    const key = `${baseline} ${font}`;
    let shift = this.baselines.get(key);
    if (shift === undefined) {
      const m = this.measurer;
      m.font = font;
      m.textBaseline = 'alphabetic';
      const alphabetic = m.measureText('H').fontBoundingBoxAscent;
      m.textBaseline = baseline as Baseline;
      shift = alphabetic - m.measureText('H').fontBoundingBoxAscent;
      m.textBaseline = 'alphabetic';
      if (this.baselines.size >= CACHED_FONTS) this.baselines.clear();
      this.baselines.set(key, shift);
    }
    return shift;
  }

  /** The measuring canvas's metrics of `text` in the current font, baseline and alignment (shared: read only). */
  measureText(text: string): Metrics {
    const s = this.state;
    const key = `${s.font}\n${s.textBaseline}\n${s.textAlign}\n${text}`;
    let metrics = this.measures.get(key);
    if (!metrics) {
      const m = this.measurer;
      m.font = s.font;
      m.textBaseline = s.textBaseline as Baseline;
      m.textAlign = s.textAlign as Align;
      metrics = m.measureText(text);
      if (this.measures.size >= CACHED_MEASURES) this.measures.clear();
      this.measures.set(key, metrics);
    }
    return metrics;
  }

  private text(kind: 'fill' | 'stroke', text: unknown, x: number, y: number, maxWidth?: number): void {
    const value = String(text ?? '');
    if (!value || !Number.isFinite(x) || !Number.isFinite(y)) return;
    const paint = kind === 'fill' ? this.paintAttributes('fill') : this.strokeAttributes();
    if (!paint) return;
    const s = this.state;
    const font = this.fontOf(s.font);
    const anchor = s.textAlign === 'center' ? 'middle' : s.textAlign === 'right' || s.textAlign === 'end' ? 'end' : 'start';
    let fit = '';
    if (maxWidth !== undefined && Number.isFinite(maxWidth) && maxWidth >= 0) {
      const width = this.measureText(value).width;
      if (width > maxWidth) fit = ` textLength="${num(maxWidth)}" lengthAdjust="spacingAndGlyphs"`;
    }
    const dy = this.baselineShift(s.font, s.textBaseline);
    const [a, b, c, d, e, f] = s.matrix;
    // Untransformed or translated text is placed by x and y; anything else by its transform.
    const placement =
      a === 1 && b === 0 && c === 0 && d === 1
        ? `x="${num(x + e)}" y="${num(y + dy + f)}"`
        : `transform="matrix(${[a, b, c, d, e, f].map((v) => Math.round(v * 10000) / 10000).join(' ')})" x="${num(x)}" y="${num(y + dy)}"`;
    const style = `${font.style !== 'normal' ? ` font-style="${font.style}"` : ''}${font.weight !== 'normal' ? ` font-weight="${font.weight}"` : ''}`;
    this.emit(
      `<text ${paint} ${placement} font-family="${xmlText(font.family)}" font-size="${num(font.size)}"${style}${anchor !== 'start' ? ` text-anchor="${anchor}"` : ''}${fit}>${xmlText(value)}</text>`,
    );
  }

  fillText(text: string, x: number, y: number, maxWidth?: number): void {
    this.text('fill', text, x, y, maxWidth);
  }

  strokeText(text: string, x: number, y: number, maxWidth?: number): void {
    this.text('stroke', text, x, y, maxWidth);
  }

  isPointInPath(): boolean {
    return false;
  }
  isPointInStroke(): boolean {
    return false;
  }
}
