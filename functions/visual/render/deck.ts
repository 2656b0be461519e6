import PptxGenJS from 'pptxgenjs';
import { xmlChars } from '../../../shared/text';
import type { Theme } from '../themes';

/**
 * Builds a .pptx (pptxgenjs) on a render thread: zipping is CPU work, and pptxgenjs loads Node's
 * fs with a dynamic import, which runs in a plain worker but not in every host's module loader.
 */
export interface DeckSlide {
  title: string;
  bullets: string[];
  notes?: string;
  /** A rendered chart as a PNG data URI with its layout size. */
  image?: { data: string; width: number; height: number };
}
export interface Deck {
  title: string;
  subtitle?: string;
  theme: Theme;
  slides: DeckSlide[];
}

/** pptxgenjs takes colors as six hex digits without '#'. */
const hex = (color: string) => (color.toLowerCase() === 'white' ? 'FFFFFF' : color.replace('#', '').toUpperCase());

const SLIDE_WIDTH = 13.33; // LAYOUT_WIDE, inches

/** The deck with each of its texts through xmlChars. */
const deckText = (deck: Deck): Deck => ({
  ...deck,
  title: xmlChars(deck.title),
  subtitle: deck.subtitle && xmlChars(deck.subtitle),
  slides: deck.slides.map((slide) => ({
    ...slide,
    title: xmlChars(slide.title),
    bullets: slide.bullets.map(xmlChars),
    notes: slide.notes && xmlChars(slide.notes),
  })),
});

/**
 * pptxgenjs escapes markup but writes every other character as given, and a control character
 * (U+0001 in a title, a NUL in notes) makes the part malformed XML, which PowerPoint refuses or
 * "repairs": every text is written without the characters XML cannot hold.
 */
export async function buildDeck(input: Deck): Promise<Buffer> {
  const deck = deckText(input);
  const { theme } = deck;
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_WIDE';
  pptx.title = deck.title;
  const font = theme.fontFamily.split(',')[0].trim();
  const text = hex(theme.textColor);
  const accent = { fill: { color: hex(theme.colors[0]) }, line: { color: hex(theme.colors[0]) } };
  const background = { color: hex(theme.backgroundColor) };

  const cover = pptx.addSlide();
  cover.background = background;
  cover.addShape('rect', { x: 0, y: 0, w: SLIDE_WIDTH, h: 0.25, ...accent });
  cover.addText(deck.title, { x: 0.8, y: 2.6, w: 11.7, h: 1.2, fontFace: font, fontSize: 40, bold: true, color: text });
  if (deck.subtitle) cover.addText(deck.subtitle, { x: 0.8, y: 3.8, w: 11.7, h: 0.8, fontFace: font, fontSize: 22, color: hex(theme.colors[1]) });

  for (const spec of deck.slides) {
    const slide = pptx.addSlide();
    slide.background = background;
    slide.addShape('rect', { x: 0, y: 0, w: SLIDE_WIDTH, h: 0.12, ...accent });
    slide.addText(spec.title, { x: 0.6, y: 0.35, w: 12.1, h: 0.9, fontFace: font, fontSize: 28, bold: true, color: text });
    if (spec.bullets.length) {
      slide.addText(
        spec.bullets.map((b) => ({ text: b, options: { bullet: true, breakLine: true } })),
        { x: 0.6, y: 1.4, w: spec.image ? 5.2 : 12.1, h: 5.5, fontFace: font, fontSize: 18, color: text, valign: 'top', paraSpaceAfter: 8 },
      );
    }
    if (spec.image) {
      // The chart keeps its aspect ratio inside the free area (right half beside bullets, else the whole body).
      const area = spec.bullets.length ? { x: 6.1, y: 1.4, w: 6.6, h: 5.6 } : { x: 0.6, y: 1.4, w: 12.1, h: 5.6 };
      const scale = Math.min(area.w / spec.image.width, area.h / spec.image.height);
      slide.addImage({ data: spec.image.data, x: area.x, y: area.y, w: spec.image.width * scale, h: spec.image.height * scale });
    }
    if (spec.notes) slide.addNotes(spec.notes);
  }
  return (await pptx.write({ outputType: 'nodebuffer', compression: true })) as Buffer;
}
