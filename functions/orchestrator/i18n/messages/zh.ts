import type { Catalogue } from './en';

/** 简体中文。 */
export const zh: Catalogue = {
  'cover.subtitle': '企业分析报告',
  'cover.title': '{company} – 企业分析报告',
  'cover.sector': '{industry}（NAICS {code}）',
  'cover.plan': '{plan, select, free {Free 报告} pro {Pro 报告} other {Enterprise 报告}}',
  'cover.contents': '目录',
  'cover.reference': '编号 {id}',
  'cover.page': '第 {page} 页，共 {pages} 页',
  'cover.offline': '离线生成：正文未使用 AI 模型，而是根据提交的数据以确定性方式撰写。',
  'cover.offlineEnglish': '本报告各章节为英文：它们在没有 AI 模型的情况下离线撰写，而离线撰写程序只支持英文。标题、表格和图注为{language}。',
  'cover.noVisuals': '未含图表：生成本报告时无法制作图表。',
  'cover.scripts': '{scripts}文字无法用本报告的字体显示，以方括号中的文字名称代替。',

  'label.figure': '图',
  'label.table': '表',

  'section.executive_summary': '执行摘要',
  'section.financial_analysis': '财务分析',
  'section.market_position': '市场地位',
  'section.operations': '运营与生产率',
  'section.risks_and_challenges': '风险与挑战',
  'section.recommendations': '建议',
  'section.about': '关于本报告',

  'figure.revenue': '{year} 年营业收入',
  'figure.cagr': '年均增长率（{from}–{to} 年）',
  'figure.averageMargin': '平均净利润率',
  'figure.employees': '员工人数',
  'figure.growthYear': '{year} 年营业收入增长率',
  'figure.marginYear': '{year} 年净利润率',
  'figure.revenuePerEmployee': '人均营业收入',

  'table.caption': '{income, select, yes {各年营业收入、增长率和净利润率} other {各年营业收入和增长率}}',
  'table.year': '年份',
  'table.revenue': '营业收入（{currency}）',
  'table.growth': '增长率',
  'table.netIncome': '净利润（{currency}）',
  'table.netMargin': '净利润率',

  'chart.revenue.caption': '各年营业收入（{unit, select, billions {十亿 } millions {百万 } thousands {千 } other {}}{currency}）',
  'chart.revenue.dataset': '营业收入（{unit, select, billions {十亿 } millions {百万 } thousands {千 } other {}}{currency}）',
  'chart.revenue.description': '{company}各年营业收入',
  'chart.revenue.single': '{year} 年营业收入为 {amount}。',
  'chart.revenue.change': '{from} 年至 {to} 年，营业收入{direction, select, up {增长} other {下降}}了 {percent}，从 {first} 变为 {last}。',
  'chart.revenue.point': '{year} 年 {amount}',
  'chart.growthMargin.caption': '{series, select, both {各年营业收入增长率和净利润率（%）} growth {各年营业收入增长率（%）} other {各年净利润率（%）}}',
  'chart.growthMargin.growthDataset': '营业收入增长率（%）',
  'chart.growthMargin.marginDataset': '净利润率（%）',
  'chart.growthMargin.description': '营业收入同比增长率和净利润率（%）',
  'chart.growthMargin.range': '{low} 至 {high} 之间',
  'chart.growthMargin.growth': '每年增长率在{range}。',
  'chart.growthMargin.margin': '{year} 年净利润率为 {margin}。',
  'chart.growthMargin.marginChange': '净利润率从 {from} 年的 {first} {direction, select, up {上升} other {下降}}至 {to} 年的 {last}。',
  'chart.growthMargin.growthAndMargin': '每年增长率在{range}，{year} 年净利润率为 {margin}。',
  'chart.growthMargin.growthAndMarginChange':
    '每年增长率在{range}，净利润率从 {from} 年的 {first} {direction, select, up {上升} other {下降}}至 {to} 年的 {last}。',
  'chart.growthMargin.pointGrowth': '增长率 {value}',
  'chart.growthMargin.pointMargin': '净利润率 {value}',
  'chart.separator': '，',
  'chart.growthMargin.point': '{year} 年：{values}',

  'unit.points': '{n, plural, other {{value} 个百分点}}',
  'unit.days': '{n, plural, other {{value} 天}}',
  'unit.months': '{n, plural, other {{value} 个月}}',

  'about.prepared':
    '本报告于 {date} 为{company}编制，仅依据该公司提供的概况和数据，未使用其他数据。金额单位为 {currency}，数字和日期遵循 {locale} 的格式。',
  'about.method':
    '增长率是营业收入相对上一年的变化。复合年均增长率是从第一年营业收入到最后一年营业收入的恒定年增长率。净利润率是净利润除以营业收入，人均营业收入是最近一年的营业收入除以所提供的员工人数。',
  'about.tinyRevenue': '营业收入低于 1 {currency} 时，其百分比没有意义：此类增长率和利润率以短横线表示，并且不计入平均值。',
  'about.offline': '正文未使用 AI 模型，而是根据数据以确定性方式撰写（离线模式）：相同的数据总是得到相同的报告。',
  'about.offlineEnglish': '离线撰写程序只支持英文，因此各章节为英文，报告其余部分为{language}。',
  'about.ai':
    '正文由 AI 模型{model, select, none {} other {（{model}）}}根据本报告中的数据以{language}撰写，模型被要求按原样使用这些数据，绝不增添；数字、表格和图表均为计算所得，并非由模型撰写。',
  'about.deterministic': '模型对{sections}的回答不符合要求的结构，因此{count, plural, other {这些章节}}根据数据以确定性方式用英文撰写。',
  'about.chartsMissing': '编制本报告时无法生成图表（图表服务不可用）；图表中应显示的所有数字均见表格和正文。',
  'about.chartsDropped': '图表无法排入本文档；图表中应显示的所有数字均见表格和正文。',
  'about.scripts':
    '提交的部分文字使用{scripts}书写，本报告的字体（{font}：拉丁文、希腊文、西里尔文等）无法显示；这些文字以方括号中的文字名称代替，文档标题保留原文。',
  'about.reference': '编号：{id}。',

  'share.download': '下载 PDF',
  'share.headline': '主要数据',
  'share.figuresOf': '{section}：数据',
  'share.footer': '编号 {id}。此共享链接于 {date} 失效。',

  'email.readySubject': '您关于{company}的报告已完成',
  'email.ready': '您关于{company}的报告已完成。',
  'email.open': '点击此处打开：{link}',
  'email.failedSubject': '您关于{company}的报告未能生成',
  'email.failed': '您关于{company}的报告未能生成。',
  'email.status': '状态：{link}',
  'email.tracking': '跟踪编号：{id}',
  'email.why': '您收到这封邮件是因为您申请了该报告。如需停止接收此类邮件，请通过以下方式关闭：',
};
