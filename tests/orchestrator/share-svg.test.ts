import { inlineSvg, UnsafeSvgError } from '../../functions/orchestrator/share/svg';
import { html } from '../../functions/orchestrator/share/html';

/** The allow-list the shared page puts chart SVG through (functions/orchestrator/share/svg.ts). */
describe('inline chart SVG', () => {
  const chart =
    '<?xml version="1.0" encoding="UTF-8"?><svg xmlns="http://www.w3.org/2000/svg" width="800" height="360" viewBox="0 0 800 360" xml:space="preserve">' +
    '<defs><clipPath id="c1"><path d="M0 0L10 0L10 10Z"/></clipPath></defs><g clip-path="url(#c1)"><rect fill="#1f4788" x="1" y="2" width="3" height="4"/></g>' +
    '<text fill="#333" x="5" y="6" font-family="DejaVu Sans" font-size="12">2021 &amp; 2022 &lt;b&gt;</text></svg>';

  test("a chart as the visual service draws it keeps its drawing; ids and their references get the chart's prefix; it is named by its title", () => {
    expect(inlineSvg(chart, 'chart-1', 'Revenue <by> "year"')).toBe(
      '<svg width="800" height="360" viewBox="0 0 800 360" role="img" aria-labelledby="chart-1-title" focusable="false"><title id="chart-1-title">Revenue &lt;by&gt; &quot;year&quot;</title>' +
        '<defs><clipPath id="chart-1-c1"><path d="M0 0L10 0L10 10Z"/></clipPath></defs><g clip-path="url(#chart-1-c1)"><rect fill="#1f4788" x="1" y="2" width="3" height="4"/></g>' +
        '<text fill="#333" x="5" y="6" font-family="DejaVu Sans" font-size="12">2021 &amp; 2022 &lt;b&gt;</text></svg>',
    );
  });

  test('scripts, handlers, links, styles, foreign content and outside references are dropped', () => {
    const hostile =
      '<svg width="10" height="10" onload="alert(1)"><script>alert(2)</script><style>*{x:y}</style><foreignObject><div>x</div></foreignObject>' +
      '<a href="javascript:alert(3)"><rect width="1" height="1"/></a><image href="http://evil/x.png"/><use href="#c1"/>' +
      '<rect width="1" height="1" style="fill:red" fill="url(http://evil/#x)" onclick="x()" xlink:href="y" stroke="url(#ok)"/>' +
      '<text x="1" y="1">&#60;script&#62; &unknown;</text><g id="bad id"/></svg>';
    const out = inlineSvg(hostile, 'chart-2', 'alt');
    expect(out).toBe(
      '<svg width="10" height="10" viewBox="0 0 10 10" role="img" aria-labelledby="chart-2-title" focusable="false"><title id="chart-2-title">alt</title>' +
        '<rect width="1" height="1" stroke="url(#chart-2-ok)"/><text x="1" y="1">&lt;script&gt; &amp;unknown;</text><g/></svg>',
    );
    expect(out).not.toMatch(/script>|onload|onclick|href|style|evil|foreignObject/);
  });

  test('what is not one well-formed svg document is refused', () => {
    for (const bad of [
      '<!DOCTYPE svg [<!ENTITY x "y">]><svg></svg>',
      '<svg><![CDATA[x]]></svg>',
      '<svg><g></svg>',
      '<svg></svg><svg></svg>',
      '<html><svg></svg></html>',
      '<svg><rect width=1/></svg>',
      '<svg><rect width="1/></svg>',
      'text<svg></svg>',
      '<svg>',
    ])
      expect(() => inlineSvg(bad, 'chart-3', 'alt')).toThrow(UnsafeSvgError);
  });

  test('html() escapes every markup character', () => {
    expect(html(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
  });
});
