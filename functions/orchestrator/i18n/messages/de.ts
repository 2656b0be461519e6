import type { Catalogue } from './en';

/** Deutsch. */
export const de: Catalogue = {
  'cover.subtitle': 'Unternehmensanalyse',
  'cover.title': '{company} – Unternehmensanalyse',
  'cover.sector': '{industry} (NAICS {code})',
  'cover.plan': '{plan, select, free {Free-Bericht} pro {Pro-Bericht} other {Enterprise-Bericht}}',
  'cover.contents': 'Inhalt',
  'cover.reference': 'Referenz {id}',
  'cover.page': 'Seite {page} von {pages}',
  'cover.offline': 'Offline erstellt: Der Text wurde ohne KI-Modell deterministisch aus den übermittelten Zahlen geschrieben.',
  'cover.offlineEnglish':
    'Die Abschnitte dieses Berichts sind auf Englisch: Sie wurden offline ohne KI-Modell geschrieben, und der Offline-Schreiber schreibt nur Englisch. Überschriften, Tabellen und Beschriftungen sind auf {language}.',
  'cover.noVisuals': 'Ohne Grafiken erstellt: Die Diagramme konnten bei der Erstellung dieses Berichts nicht erzeugt werden.',
  'cover.scripts': 'Text in {scripts} kann mit der Schrift dieses Berichts nicht dargestellt werden und erscheint als Name seiner Schrift in eckigen Klammern.',

  'label.figure': 'Abbildung',
  'label.table': 'Tabelle',

  'section.executive_summary': 'Zusammenfassung',
  'section.financial_analysis': 'Finanzanalyse',
  'section.market_position': 'Marktposition',
  'section.operations': 'Betrieb und Produktivität',
  'section.risks_and_challenges': 'Risiken und Herausforderungen',
  'section.recommendations': 'Empfehlungen',
  'section.about': 'Über diesen Bericht',

  'figure.revenue': 'Umsatz {year}',
  'figure.cagr': 'Wachstum pro Jahr, {from}–{to}',
  'figure.averageMargin': 'Durchschnittliche Nettomarge',
  'figure.employees': 'Beschäftigte',
  'figure.growthYear': 'Umsatzwachstum {year}',
  'figure.marginYear': 'Nettomarge {year}',
  'figure.revenuePerEmployee': 'Umsatz je Beschäftigten',

  'table.caption': '{income, select, yes {Umsatz, Wachstum und Nettomarge nach Jahr} other {Umsatz und Wachstum nach Jahr}}',
  'table.year': 'Jahr',
  'table.revenue': 'Umsatz ({currency})',
  'table.growth': 'Wachstum',
  'table.netIncome': 'Jahresüberschuss ({currency})',
  'table.netMargin': 'Nettomarge',

  'chart.revenue.caption': 'Umsatz nach Jahr, {unit, select, billions {Mrd. } millions {Mio. } thousands {Tsd. } other {}}{currency}',
  'chart.revenue.dataset': 'Umsatz ({unit, select, billions {Mrd. } millions {Mio. } thousands {Tsd. } other {}}{currency})',
  'chart.revenue.description': 'Umsatz von {company} nach Jahr',
  'chart.revenue.single': 'Der Umsatz betrug {year} {amount}.',
  'chart.revenue.change': 'Der Umsatz {direction, select, up {stieg} other {fiel}} zwischen {from} und {to} um {percent}, von {first} auf {last}.',
  'chart.revenue.point': '{amount} im Jahr {year}',
  'chart.growthMargin.caption':
    '{series, select, both {Umsatzwachstum und Nettomarge nach Jahr, %} growth {Umsatzwachstum nach Jahr, %} other {Nettomarge nach Jahr, %}}',
  'chart.growthMargin.growthDataset': 'Umsatzwachstum (%)',
  'chart.growthMargin.marginDataset': 'Nettomarge (%)',
  'chart.growthMargin.description': 'Umsatzwachstum gegenüber dem Vorjahr und Nettomarge in Prozent',
  'chart.growthMargin.range': 'zwischen {low} und {high}',
  'chart.growthMargin.growth': 'Das Wachstum lag bei {range} pro Jahr.',
  'chart.growthMargin.margin': 'Die Nettomarge betrug {year} {margin}.',
  'chart.growthMargin.marginChange': 'Die Nettomarge {direction, select, up {stieg} other {fiel}} von {first} im Jahr {from} auf {last} im Jahr {to}.',
  'chart.growthMargin.growthAndMargin': 'Das Wachstum lag bei {range} pro Jahr, während die Nettomarge {year} {margin} betrug.',
  'chart.growthMargin.growthAndMarginChange':
    'Das Wachstum lag bei {range} pro Jahr, während die Nettomarge von {first} im Jahr {from} auf {last} im Jahr {to} {direction, select, up {stieg} other {fiel}}.',
  'chart.growthMargin.pointGrowth': 'Wachstum {value}',
  'chart.growthMargin.pointMargin': 'Nettomarge {value}',
  'chart.separator': ', ',
  'chart.growthMargin.point': '{year}: {values}',

  'unit.points': '{n, plural, one {{value} Prozentpunkt} other {{value} Prozentpunkte}}',
  'unit.days': '{n, plural, one {{value} Tag} other {{value} Tage}}',
  'unit.months': '{n, plural, one {{value} Monat} other {{value} Monate}}',

  'about.prepared':
    'Dieser Bericht wurde am {date} für {company} aus dem Profil und den Zahlen erstellt, die das Unternehmen übermittelt hat; andere Daten wurden nicht verwendet. Beträge sind in {currency} angegeben, Zahlen und Daten folgen den Konventionen von {locale}.',
  'about.method':
    'Wachstum ist die Veränderung des Umsatzes gegenüber dem Vorjahr. Die durchschnittliche jährliche Wachstumsrate ist die gleichbleibende jährliche Rate, die vom Umsatz des ersten Jahres zu dem des letzten führt. Die Nettomarge ist der Jahresüberschuss geteilt durch den Umsatz, und der Umsatz je Beschäftigten teilt den Umsatz des letzten Jahres durch die angegebene Beschäftigtenzahl.',
  'about.tinyRevenue':
    'Ein Prozentsatz eines Umsatzes unter einer Einheit {currency} lässt sich nicht sinnvoll berechnen: Solches Wachstum und solche Margen erscheinen als Strich und gehen nicht in die Durchschnitte ein.',
  'about.offline':
    'Der Text wurde deterministisch aus den Zahlen geschrieben (Offline-Modus), ohne KI-Modell: Dieselben Zahlen ergeben immer denselben Bericht.',
  'about.offlineEnglish': 'Der Offline-Schreiber schreibt nur Englisch; daher sind die Abschnitte auf Englisch, der übrige Bericht auf {language}.',
  'about.ai':
    'Der Text wurde von einem KI-Modell{model, select, none {} other { ({model})}} auf {language} aus den Zahlen dieses Berichts geschrieben, die es unverändert verwenden und nie ergänzen sollte; Zahlen, Tabellen und Diagramme sind berechnet, nicht vom Modell geschrieben.',
  'about.deterministic':
    'Die Antworten des Modells für {sections} hatten nicht die geforderte Struktur, daher {count, plural, one {wurde dieser Abschnitt} other {wurden diese Abschnitte}} deterministisch aus den Zahlen geschrieben, auf Englisch.',
  'about.chartsMissing':
    'Die Diagramme konnten bei der Erstellung dieses Berichts nicht erzeugt werden (der Diagrammdienst war nicht erreichbar); jede Zahl, die sie zeigen würden, steht in den Tabellen und im Text.',
  'about.chartsDropped': 'Die Diagramme konnten in diesem Dokument nicht gesetzt werden; jede Zahl, die sie zeigen würden, steht in den Tabellen und im Text.',
  'about.scripts':
    'Ein Teil des übermittelten Textes ist in {scripts} geschrieben, was die Schrift des Berichts ({font}: Lateinisch, Griechisch, Kyrillisch und mehr) nicht darstellen kann; er erscheint als Name der Schrift in eckigen Klammern, und der Titel des Dokuments behält das Original.',
  'about.reference': 'Referenz: {id}.',

  'share.download': 'PDF herunterladen',
  'share.headline': 'Kennzahlen',
  'share.figuresOf': '{section}: Kennzahlen',
  'share.footer': 'Referenz {id}. Geteilt mit einem Link, der am {date} abläuft.',

  'email.readySubject': 'Ihr Bericht über {company} ist fertig',
  'email.ready': 'Ihr Bericht über {company} ist fertig.',
  'email.open': 'Hier öffnen: {link}',
  'email.failedSubject': 'Ihr Bericht über {company} konnte nicht erstellt werden',
  'email.failed': 'Ihr Bericht über {company} konnte nicht erstellt werden.',
  'email.status': 'Sein Status: {link}',
  'email.tracking': 'Tracking-ID: {id}',
  'email.why': 'Sie erhalten diese E-Mail, weil Sie den Bericht angefordert haben. Um diese E-Mails abzubestellen, schalten Sie sie ab mit',
};
