/**
 * Reading a report PDF as a checker would, with Debian's poppler-utils and mupdf-tools (got by
 * `npm run test:tools`): the text a reader copies, page by page; the fonts and whether each is
 * embedded; the raster images; the outline; the catalog; the structure tree's figures and their
 * alternative text; and how full each page is. The report tests and `npm run docs:report` use it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PAGE_MARGINS_CM } from '../functions/orchestrator/report/report-template';

export interface PdfTools {
  pdftotext: string;
  pdfinfo: string;
  pdffonts: string;
  pdfimages: string;
  pdftoppm: string;
  mutool?: string;
}

/** A tool's standard output; its standard error is dropped (poppler 22 warns about a valid boolean /Suspects that Typst writes). */
const run = (command: string, args: string[]) => execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });

/** Darkest grey still counted as paper (0 black, 255 white): anti-aliasing halos of 40 dpi pixels stay below it. */
const PAPER = 235;
/** Resolution of the fill measure: enough to see a line of 8-point text, cheap to read. */
const FILL_DPI = 40;

export class PdfReport {
  private readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-inspect-'));
  readonly file: string;

  constructor(
    readonly bytes: Buffer,
    private readonly tools: PdfTools,
  ) {
    this.file = path.join(this.dir, 'report.pdf');
    fs.writeFileSync(this.file, bytes);
  }

  /** pdfinfo's fields (Pages, Title, Tagged...). */
  info(): Record<string, string> {
    return Object.fromEntries(
      run(this.tools.pdfinfo, [this.file])
        .split('\n')
        .filter((line) => line.indexOf(':') > 0)
        .map((line) => [line.slice(0, line.indexOf(':')).trim(), line.slice(line.indexOf(':') + 1).trim()]),
    );
  }

  pages(): number {
    return Number(this.info().Pages);
  }

  /** The text of one page (1-based), or of the whole document, as `pdftotext -enc UTF-8` gives it. */
  text(page?: number): string {
    return run(this.tools.pdftotext, ['-enc', 'UTF-8', ...(page ? ['-f', String(page), '-l', String(page)] : []), this.file, '-']);
  }

  /** Each font with whether it is embedded (pdffonts' emb column). */
  fonts(): { name: string; embedded: boolean }[] {
    return run(this.tools.pdffonts, [this.file])
      .split('\n')
      .slice(2)
      .map((line) => /^(\S+)\s.*\s(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/.exec(line))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ name: m[1], embedded: m[2] === 'yes' }));
  }

  /** The raster images (pdfimages -list rows after its two header lines). */
  images(): string[] {
    return run(this.tools.pdfimages, ['-list', this.file])
      .split('\n')
      .slice(2)
      .filter((line) => line.trim());
  }

  private mutool(...args: string[]): string {
    if (!this.tools.mutool) throw new Error('mutool (mupdf-tools) is needed for this check');
    return run(this.tools.mutool, ['show', this.file, ...args]);
  }

  /** One page (1-based) rendered to PNG by pdftoppm at `dpi`: two renders of the same drawing are the same bytes. */
  png(page: number, dpi: number): Buffer {
    const prefix = path.join(this.dir, `page-${page}-${dpi}`);
    execFileSync(this.tools.pdftoppm, ['-png', '-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', this.file, prefix], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    return fs.readFileSync(`${prefix}.png`);
  }

  /** The bookmarks' titles, in order. */
  outline(): string[] {
    return [...this.mutool('outline').matchAll(/"([^"]*)"/g)].map((m) => m[1]);
  }

  /**
   * One page's text in the order its glyphs stand on the line, left to right, as MuPDF reads it
   * without the bidirectional algorithm (`mutool draw -F txt`): right-to-left text comes out reversed.
   */
  visualText(page: number): string {
    if (!this.tools.mutool) throw new Error('mutool (mupdf-tools) is needed for this check');
    return run(this.tools.mutool, ['draw', '-q', '-F', 'txt', '-o', '-', this.file, String(page)]);
  }

  /** The document catalog as mutool prints it (/Lang, /StructTreeRoot, /MarkInfo...). */
  catalog(): string {
    return this.mutool('trailer/Root');
  }

  /** The structure tree's Figure elements with their alternative text (decoded from PDF text strings). */
  figures(): { alt: string | null }[] {
    return this.mutool('grep')
      .split('\n')
      .filter((line) => /\/S\s*\/Figure\b/.test(line))
      .map((line) => {
        const literal = literalStringAfter(line, '/Alt');
        const hex = /\/Alt\s*<([0-9A-Fa-f\s]*)>/.exec(line);
        if (literal !== undefined) return { alt: literal.replace(/\\(.)/g, '$1') };
        if (hex) {
          const bytes = Buffer.from(hex[1].replace(/\s/g, ''), 'hex');
          const utf16be = bytes.subarray(0, 2).equals(Buffer.from([0xfe, 0xff]));
          return { alt: utf16be ? Buffer.from(bytes.subarray(2)).swap16().toString('utf16le') : bytes.toString('latin1') };
        }
        return { alt: null };
      });
  }

  /**
   * How full a page is: how far down the body (the page less its margins, where the running header
   * and footer sit) the lowest ink reaches, as a share of the body's height, on a 40 dpi greyscale
   * render by pdftoppm. A page whose content stops halfway down is 0.5 whatever the content is.
   */
  fill(page: number): number {
    const prefix = path.join(this.dir, `fill-${page}`);
    execFileSync(this.tools.pdftoppm, ['-gray', '-r', String(FILL_DPI), '-f', String(page), '-l', String(page), '-singlefile', this.file, prefix], {
      stdio: 'ignore',
    });
    const pgm = fs.readFileSync(`${prefix}.pgm`);
    const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 64).toString('latin1'));
    if (!header) throw new Error('pdftoppm wrote no binary PGM');
    const [width, height] = [Number(header[1]), Number(header[2])];
    const pixels = pgm.subarray(header[0].length);
    const px = (cm: number) => (cm / 2.54) * FILL_DPI;
    const top = Math.ceil(px(PAGE_MARGINS_CM.top));
    const bottom = Math.floor(height - px(PAGE_MARGINS_CM.bottom));
    const [left, right] = [Math.ceil(px(PAGE_MARGINS_CM.left)), Math.floor(width - px(PAGE_MARGINS_CM.right))];
    let lowest = top;
    for (let y = top; y < bottom; y++) {
      for (let x = left; x < right; x++) {
        if (pixels[y * width + x] < PAPER) {
          lowest = y;
          break;
        }
      }
    }
    return (lowest - top) / (bottom - top);
  }

  close(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The PDF literal string `(...)` right after `key` (spaces between allowed), escapes kept; undefined
 * when there is none. A scan, not a pattern: the line is a whole PDF object, of any length.
 */
function literalStringAfter(line: string, key: string): string | undefined {
  const at = line.indexOf(key);
  if (at < 0) return undefined;
  let i = at + key.length;
  while (i < line.length && /\s/.test(line[i])) i++;
  if (line[i] !== '(') return undefined;
  for (let j = i + 1; j < line.length; j++) {
    if (line[j] === '\\') j++;
    else if (line[j] === ')') return line.slice(i + 1, j);
  }
  return undefined;
}
