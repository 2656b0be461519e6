import type { Catalogue } from './en';

/** 日本語。 */
export const ja: Catalogue = {
  'cover.subtitle': '企業分析レポート',
  'cover.title': '{company} – 企業分析レポート',
  'cover.sector': '{industry}（NAICS {code}）',
  'cover.plan': '{plan, select, free {Free レポート} pro {Pro レポート} other {Enterprise レポート}}',
  'cover.contents': '目次',
  'cover.reference': '参照番号 {id}',
  'cover.page': '{page} / {pages} ページ',
  'cover.offline': 'オフラインで作成：本文は AI モデルを使わず、提出された数値から決定的に作成されました。',
  'cover.offlineEnglish':
    '本レポートの各章は英語です。AI モデルを使わずオフラインで作成されており、オフライン作成機能は英語のみに対応しています。見出し、表、図の説明は{language}です。',
  'cover.noVisuals': '図表なしで作成：本レポートの作成時にグラフを生成できませんでした。',
  'cover.scripts': '{scripts}のテキストは本レポートのフォントで表示できないため、角括弧で囲んだ文字体系名で示しています。',

  'label.figure': '図',
  'label.table': '表',

  'section.executive_summary': 'エグゼクティブサマリー',
  'section.financial_analysis': '財務分析',
  'section.market_position': '市場でのポジション',
  'section.operations': '業務と生産性',
  'section.risks_and_challenges': 'リスクと課題',
  'section.recommendations': '提言',
  'section.about': '本レポートについて',

  'figure.revenue': '売上高（{year}年）',
  'figure.cagr': '年平均成長率（{from}–{to}年）',
  'figure.averageMargin': '平均純利益率',
  'figure.employees': '従業員数',
  'figure.growthYear': '売上高成長率（{year}年）',
  'figure.marginYear': '純利益率（{year}年）',
  'figure.revenuePerEmployee': '従業員 1 人当たり売上高',

  'table.caption': '{income, select, yes {年別の売上高、成長率、純利益率} other {年別の売上高と成長率}}',
  'table.year': '年',
  'table.revenue': '売上高（{currency}）',
  'table.growth': '成長率',
  'table.netIncome': '純利益（{currency}）',
  'table.netMargin': '純利益率',

  'chart.revenue.caption': '年別売上高（{unit, select, billions {十億 } millions {百万 } thousands {千 } other {}}{currency}）',
  'chart.revenue.dataset': '売上高（{unit, select, billions {十億 } millions {百万 } thousands {千 } other {}}{currency}）',
  'chart.revenue.description': '{company}の年別売上高',
  'chart.revenue.single': '{year}年の売上高は{amount}でした。',
  'chart.revenue.change': '売上高は{from}年から{to}年にかけて{percent}{direction, select, up {増加} other {減少}}し、{first}から{last}になりました。',
  'chart.revenue.point': '{year}年 {amount}',
  'chart.growthMargin.caption': '{series, select, both {年別の売上高成長率と純利益率（%）} growth {年別の売上高成長率（%）} other {年別の純利益率（%）}}',
  'chart.growthMargin.growthDataset': '売上高成長率（%）',
  'chart.growthMargin.marginDataset': '純利益率（%）',
  'chart.growthMargin.description': '前年比の売上高成長率と純利益率（%）',
  'chart.growthMargin.range': '{low}から{high}の間',
  'chart.growthMargin.growth': '成長率は年{range}でした。',
  'chart.growthMargin.margin': '{year}年の純利益率は{margin}でした。',
  'chart.growthMargin.marginChange': '純利益率は{from}年の{first}から{to}年の{last}へ{direction, select, up {上昇} other {低下}}しました。',
  'chart.growthMargin.growthAndMargin': '成長率は年{range}で、{year}年の純利益率は{margin}でした。',
  'chart.growthMargin.growthAndMarginChange':
    '成長率は年{range}で、純利益率は{from}年の{first}から{to}年の{last}へ{direction, select, up {上昇} other {低下}}しました。',
  'chart.growthMargin.pointGrowth': '成長率 {value}',
  'chart.growthMargin.pointMargin': '純利益率 {value}',
  'chart.separator': '、',
  'chart.growthMargin.point': '{year}年：{values}',

  'unit.points': '{n, plural, other {{value} ポイント}}',
  'unit.days': '{n, plural, other {{value} 日}}',
  'unit.months': '{n, plural, other {{value} か月}}',

  'about.prepared':
    '本レポートは、{company}が提出したプロフィールと数値のみに基づき、{date}に作成されました。その他のデータは使用していません。金額の単位は{currency}で、数値と日付は{locale}の表記に従っています。',
  'about.method':
    '成長率は前年からの売上高の変化です。年平均成長率は、初年度の売上高から最終年度の売上高に至る一定の年率です。純利益率は純利益を売上高で割ったもので、従業員 1 人当たり売上高は最終年度の売上高を提出された従業員数で割ったものです。',
  'about.tinyRevenue':
    '売上高が 1 {currency}未満の場合、その百分率には意味がないため、その成長率と利益率はダッシュで示し、平均から除外しています。',
  'about.offline': '本文は AI モデルを使わず、数値から決定的に作成されました（オフラインモード）。同じ数値からは常に同じレポートが作成されます。',
  'about.offlineEnglish': 'オフライン作成機能は英語のみに対応しているため、各章は英語で、それ以外は{language}です。',
  'about.ai':
    '本文は AI モデル{model, select, none {} other {（{model}）}}が本レポートの数値をもとに{language}で作成しました。モデルには数値をそのまま使い、決して付け加えないよう指示しています。数値、表、グラフは計算によるもので、モデルが書いたものではありません。',
  'about.deterministic':
    '{sections}についてのモデルの回答が必要な構造を満たさなかったため、{count, plural, other {該当する章}}は数値から決定的に英語で作成されました。',
  'about.chartsMissing':
    '本レポートの作成時にグラフを生成できませんでした（グラフサービスが利用できませんでした）。グラフが示すはずの数値はすべて表と本文に記載しています。',
  'about.chartsDropped': 'グラフをこの文書に組み込めませんでした。グラフが示すはずの数値はすべて表と本文に記載しています。',
  'about.scripts':
    '提出されたテキストの一部は{scripts}で書かれており、本レポートのフォント（{font}：ラテン文字、ギリシャ文字、キリル文字など）では表示できません。角括弧で囲んだ文字体系名で示し、文書のタイトルには原文を残しています。',
  'about.reference': '参照番号：{id}。',

  'share.download': 'PDF をダウンロード',
  'share.headline': '主要な数値',
  'share.figuresOf': '{section}：数値',
  'share.footer': '参照番号 {id}。このリンクは {date} に失効します。',

  'email.readySubject': '{company}のレポートができました',
  'email.ready': '{company}のレポートができました。',
  'email.open': 'こちらから開けます：{link}',
  'email.failedSubject': '{company}のレポートを作成できませんでした',
  'email.failed': '{company}のレポートを作成できませんでした。',
  'email.status': '状況：{link}',
  'email.tracking': '追跡 ID：{id}',
  'email.why': 'このメールは、レポートをご依頼いただいたためお送りしています。このメールを停止するには、次の方法でオフにしてください：',
};
