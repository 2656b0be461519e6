import type { Catalogue } from './en';

/** Español. */
export const es: Catalogue = {
  'cover.subtitle': 'Informe de análisis empresarial',
  'cover.title': '{company} – Informe de análisis empresarial',
  'cover.sector': '{industry} (SCIAN {code})',
  'cover.plan': '{plan, select, free {Informe Free} pro {Informe Pro} other {Informe Enterprise}}',
  'cover.contents': 'En este informe',
  'cover.reference': 'Referencia {id}',
  'cover.page': 'Página {page} de {pages}',
  'cover.offline': 'Generado sin conexión: el texto se redactó de forma determinista a partir de las cifras enviadas, sin un modelo de IA.',
  'cover.offlineEnglish':
    'Las secciones de este informe están en inglés: se redactaron sin conexión, sin un modelo de IA, y el redactor sin conexión solo escribe en inglés. Los títulos, las tablas y los pies de figura están en {language}.',
  'cover.noVisuals': 'Producido sin elementos visuales: los gráficos no pudieron crearse al producir este informe.',
  'cover.scripts': 'El texto en {scripts} no puede mostrarse con la fuente de este informe y aparece como el nombre de su escritura entre corchetes.',

  'label.figure': 'Figura',
  'label.table': 'Tabla',

  'section.executive_summary': 'Resumen ejecutivo',
  'section.financial_analysis': 'Análisis financiero',
  'section.market_position': 'Posición en el mercado',
  'section.operations': 'Operaciones y productividad',
  'section.risks_and_challenges': 'Riesgos y desafíos',
  'section.recommendations': 'Recomendaciones',
  'section.about': 'Acerca de este informe',

  'figure.revenue': 'Ingresos {year}',
  'figure.cagr': 'Crecimiento anual, {from}–{to}',
  'figure.averageMargin': 'Margen neto medio',
  'figure.employees': 'Empleados',
  'figure.growthYear': 'Crecimiento de los ingresos {year}',
  'figure.marginYear': 'Margen neto {year}',
  'figure.revenuePerEmployee': 'Ingresos por empleado',

  'table.caption': '{income, select, yes {Ingresos, crecimiento y margen neto por año} other {Ingresos y crecimiento por año}}',
  'table.year': 'Año',
  'table.revenue': 'Ingresos ({currency})',
  'table.growth': 'Crecimiento',
  'table.netIncome': 'Beneficio neto ({currency})',
  'table.netMargin': 'Margen neto',

  'chart.revenue.caption':
    'Ingresos por año, {unit, select, billions {miles de millones de } millions {millones de } thousands {miles de } other {}}{currency}',
  'chart.revenue.dataset': 'Ingresos ({unit, select, billions {miles de millones de } millions {millones de } thousands {miles de } other {}}{currency})',
  'chart.revenue.description': 'Ingresos de {company} por año',
  'chart.revenue.single': 'Los ingresos de {year} fueron de {amount}.',
  'chart.revenue.change': 'Los ingresos {direction, select, up {aumentaron} other {disminuyeron}} un {percent} entre {from} y {to}, de {first} a {last}.',
  'chart.revenue.point': '{amount} en {year}',
  'chart.growthMargin.caption':
    '{series, select, both {Crecimiento de los ingresos y margen neto por año, %} growth {Crecimiento de los ingresos por año, %} other {Margen neto por año, %}}',
  'chart.growthMargin.growthDataset': 'Crecimiento de los ingresos (%)',
  'chart.growthMargin.marginDataset': 'Margen neto (%)',
  'chart.growthMargin.description': 'Crecimiento de los ingresos respecto al año anterior y margen neto, en porcentaje',
  'chart.growthMargin.range': 'entre {low} y {high}',
  'chart.growthMargin.growth': 'El crecimiento fue de {range} al año.',
  'chart.growthMargin.margin': 'El margen neto fue del {margin} en {year}.',
  'chart.growthMargin.marginChange': 'El margen neto {direction, select, up {pasó} other {cayó}} del {first} en {from} al {last} en {to}.',
  'chart.growthMargin.growthAndMargin': 'El crecimiento fue de {range} al año, mientras que el margen neto fue del {margin} en {year}.',
  'chart.growthMargin.growthAndMarginChange':
    'El crecimiento fue de {range} al año, mientras que el margen neto {direction, select, up {pasó} other {cayó}} del {first} en {from} al {last} en {to}.',
  'chart.growthMargin.pointGrowth': 'crecimiento {value}',
  'chart.growthMargin.pointMargin': 'margen neto {value}',
  'chart.separator': ', ',
  'chart.growthMargin.point': '{year}: {values}',

  'unit.points': '{n, plural, one {{value} punto porcentual} other {{value} puntos porcentuales}}',
  'unit.days': '{n, plural, one {{value} día} other {{value} días}}',
  'unit.months': '{n, plural, one {{value} mes} other {{value} meses}}',

  'about.prepared':
    'Este informe se elaboró el {date} para {company} a partir del perfil y las cifras que facilitó la empresa; no se utilizaron otros datos. Los importes están en {currency}, y los números y las fechas siguen las convenciones de {locale}.',
  'about.method':
    'El crecimiento es la variación de los ingresos respecto al año anterior. La tasa de crecimiento anual compuesta es la tasa anual constante que lleva de los ingresos del primer año a los del último. El margen neto es el beneficio neto dividido entre los ingresos, y los ingresos por empleado dividen los ingresos del último año entre la plantilla indicada.',
  'about.tinyRevenue':
    'Un porcentaje de unos ingresos inferiores a una unidad de {currency} no puede calcularse con sentido: ese crecimiento y esos márgenes se muestran con un guion y quedan fuera de las medias.',
  'about.offline':
    'El texto se redactó de forma determinista a partir de las cifras (modo sin conexión), sin un modelo de IA: las mismas cifras dan siempre el mismo informe.',
  'about.offlineEnglish': 'El redactor sin conexión solo escribe en inglés, por lo que las secciones están en inglés y el resto del informe en {language}.',
  'about.ai':
    'El texto lo redactó un modelo de IA{model, select, none {} other { ({model})}} en {language} a partir de las cifras de este informe, que debía usar tal como se dan y nunca ampliar; las cifras, las tablas y los gráficos se calculan, no los redacta el modelo.',
  'about.deterministic':
    'Las respuestas del modelo para {sections} no tenían la estructura requerida, por lo que {count, plural, one {esa sección se redactó} other {esas secciones se redactaron}} de forma determinista a partir de las cifras, en inglés.',
  'about.chartsMissing':
    'Los gráficos no pudieron generarse al elaborar este informe (el servicio de gráficos no estaba disponible); todas las cifras que mostrarían figuran en las tablas y en el texto.',
  'about.chartsDropped': 'Los gráficos no pudieron componerse en este documento; todas las cifras que mostrarían figuran en las tablas y en el texto.',
  'about.scripts':
    'Parte del texto enviado está escrito en {scripts}, que la fuente del informe ({font}: latín, griego, cirílico y más) no puede mostrar; aparece como el nombre de la escritura entre corchetes, y el título del documento conserva el original.',
  'about.reference': 'Referencia: {id}.',

  // The metric dictionary's labels (report/words.ts METRIC_DICTIONARY), by their English label.
  'metric.Gross margin': 'Margen bruto',
  'metric.Net margin': 'Margen neto',
  'metric.Operating margin': 'Margen operativo',
  'metric.EBITDA margin': 'Margen EBITDA',
  'metric.Customer retention': 'Retención de clientes',
  'metric.Retention rate': 'Tasa de retención',
  'metric.Customer churn': 'Abandono de clientes',
  'metric.Revenue growth': 'Crecimiento de los ingresos',
  'metric.Market share': 'Cuota de mercado',
  'metric.Employee turnover': 'Rotación de personal',
  'metric.Utilization': 'Utilización',
  'metric.Billable utilization': 'Utilización facturable',
  'metric.On-time delivery': 'Entregas a tiempo',
  'metric.Recurring revenue share': 'Proporción de ingresos recurrentes',
  'metric.Customer satisfaction': 'Satisfacción del cliente',
  'metric.Net Promoter Score': 'Net Promoter Score',
  'metric.Customers': 'Clientes',
  'metric.Active users': 'Usuarios activos',
  'metric.Annual recurring revenue': 'Ingresos recurrentes anuales',
  'metric.Monthly recurring revenue': 'Ingresos recurrentes mensuales',
  'metric.Customer acquisition cost': 'Coste de adquisición de clientes',
  'metric.Customer lifetime value': 'Valor de vida del cliente',
  'metric.Lifetime value to acquisition cost': 'Valor de vida frente a coste de adquisición',
  'metric.Average contract value': 'Valor medio de los contratos',
  'metric.Order backlog': 'Cartera de pedidos',
  'metric.Inventory turnover': 'Rotación de inventario',
  'metric.Days sales outstanding': 'Periodo medio de cobro (DSO)',
  'metric.Payback period': 'Periodo de recuperación',

  // NAICS 2022 sectors (report/industries.ts), by code.
  'sector.11': 'Agricultura, silvicultura, pesca y caza',
  'sector.21': 'Minería, explotación de canteras y extracción de petróleo y gas',
  'sector.22': 'Servicios públicos',
  'sector.23': 'Construcción',
  'sector.31-33': 'Industrias manufactureras',
  'sector.42': 'Comercio al por mayor',
  'sector.44-45': 'Comercio al por menor',
  'sector.48-49': 'Transporte y almacenamiento',
  'sector.51': 'Información en medios masivos',
  'sector.52': 'Servicios financieros y de seguros',
  'sector.53': 'Servicios inmobiliarios y de alquiler',
  'sector.54': 'Servicios profesionales, científicos y técnicos',
  'sector.55': 'Dirección de corporativos y empresas',
  'sector.56': 'Servicios de apoyo a los negocios y manejo de residuos y remediación',
  'sector.61': 'Servicios educativos',
  'sector.62': 'Servicios de salud y de asistencia social',
  'sector.71': 'Servicios de esparcimiento culturales y deportivos',
  'sector.72': 'Servicios de alojamiento y de preparación de alimentos',
  'sector.81': 'Otros servicios (excepto administración pública)',
  'sector.92': 'Administración pública',

  'share.download': 'Descargar el PDF',
  'share.headline': 'Cifras clave',
  'share.figuresOf': '{section}: cifras',
  'share.footer': 'Referencia {id}. Compartido con un enlace que caduca el {date}.',

  'email.readySubject': 'Su informe sobre {company} está listo',
  'email.ready': 'Su informe sobre {company} está listo.',
  'email.open': 'Ábralo aquí: {link}',
  'email.shareNote':
    'La página se abre en cualquier dispositivo sin iniciar sesión, durante {days, plural, one {# día} other {# días}}, e incluye el PDF. Cualquier persona a la que reenvíe este enlace podrá leer el informe hasta entonces; los enlaces compartidos de su informe lo muestran y puede revocarlo allí.',
  'email.failedSubject': 'No se pudo elaborar su informe sobre {company}',
  'email.failed': 'No se pudo elaborar su informe sobre {company}.',
  'email.status': 'Su estado: {link}',
  'email.tracking': 'Identificador de seguimiento: {id}',
  'email.why': 'Recibe este correo porque solicitó el informe. Para dejar de recibir estos correos, desactívelos con',
};
