import type { Catalogue } from './en';

/** Français (apostrophes typographiques : l’apostrophe droite est un guillemet en ICU). */
export const fr: Catalogue = {
  'cover.subtitle': 'Rapport d’analyse d’entreprise',
  'cover.title': '{company} – Rapport d’analyse d’entreprise',
  'cover.sector': '{industry} (SCIAN {code})',
  'cover.plan': '{plan, select, free {Rapport Free} pro {Rapport Pro} other {Rapport Enterprise}}',
  'cover.contents': 'Dans ce rapport',
  'cover.reference': 'Référence {id}',
  'cover.page': 'Page {page} sur {pages}',
  'cover.offline': 'Généré hors ligne : le texte a été rédigé de façon déterministe à partir des chiffres transmis, sans modèle d’IA.',
  'cover.offlineEnglish':
    'Les sections de ce rapport sont en anglais : elles ont été rédigées hors ligne, sans modèle d’IA, et le rédacteur hors ligne n’écrit qu’en anglais. Les titres, les tableaux et les légendes sont en {language}.',
  'cover.noVisuals': 'Produit sans visuels : les graphiques n’ont pas pu être créés lors de la production de ce rapport.',
  'cover.scripts': 'Le texte en {scripts} ne peut pas être affiché avec la police de ce rapport et apparaît sous le nom de son écriture entre crochets.',

  'label.figure': 'Figure',
  'label.table': 'Tableau',

  'section.executive_summary': 'Synthèse',
  'section.financial_analysis': 'Analyse financière',
  'section.market_position': 'Position sur le marché',
  'section.operations': 'Activité et productivité',
  'section.risks_and_challenges': 'Risques et défis',
  'section.recommendations': 'Recommandations',
  'section.about': 'À propos de ce rapport',

  'figure.revenue': 'Chiffre d’affaires {year}',
  'figure.cagr': 'Croissance annuelle, {from}–{to}',
  'figure.averageMargin': 'Marge nette moyenne',
  'figure.employees': 'Salariés',
  'figure.growthYear': 'Croissance du chiffre d’affaires {year}',
  'figure.marginYear': 'Marge nette {year}',
  'figure.revenuePerEmployee': 'Chiffre d’affaires par salarié',

  'table.caption': '{income, select, yes {Chiffre d’affaires, croissance et marge nette par année} other {Chiffre d’affaires et croissance par année}}',
  'table.year': 'Année',
  'table.revenue': 'Chiffre d’affaires ({currency})',
  'table.growth': 'Croissance',
  'table.netIncome': 'Résultat net ({currency})',
  'table.netMargin': 'Marge nette',

  'chart.revenue.caption':
    'Chiffre d’affaires par année, {unit, select, billions {milliards de } millions {millions de } thousands {milliers de } other {}}{currency}',
  'chart.revenue.dataset': 'Chiffre d’affaires ({unit, select, billions {milliards de } millions {millions de } thousands {milliers de } other {}}{currency})',
  'chart.revenue.description': 'Chiffre d’affaires de {company} par année',
  'chart.revenue.single': 'Le chiffre d’affaires était de {amount} en {year}.',
  'chart.revenue.change':
    'Le chiffre d’affaires a {direction, select, up {progressé} other {reculé}} de {percent} entre {from} et {to}, passant de {first} à {last}.',
  'chart.revenue.point': '{amount} en {year}',
  'chart.growthMargin.caption':
    '{series, select, both {Croissance du chiffre d’affaires et marge nette par année, %} growth {Croissance du chiffre d’affaires par année, %} other {Marge nette par année, %}}',
  'chart.growthMargin.growthDataset': 'Croissance du chiffre d’affaires (%)',
  'chart.growthMargin.marginDataset': 'Marge nette (%)',
  'chart.growthMargin.description': 'Croissance du chiffre d’affaires sur un an et marge nette, en pourcentage',
  'chart.growthMargin.range': 'entre {low} et {high}',
  'chart.growthMargin.growth': 'La croissance a été de {range} par an.',
  'chart.growthMargin.margin': 'La marge nette était de {margin} en {year}.',
  'chart.growthMargin.marginChange': 'La marge nette est {direction, select, up {passée} other {tombée}} de {first} en {from} à {last} en {to}.',
  'chart.growthMargin.growthAndMargin': 'La croissance a été de {range} par an, tandis que la marge nette était de {margin} en {year}.',
  'chart.growthMargin.growthAndMarginChange':
    'La croissance a été de {range} par an, tandis que la marge nette est {direction, select, up {passée} other {tombée}} de {first} en {from} à {last} en {to}.',
  'chart.growthMargin.pointGrowth': 'croissance {value}',
  'chart.growthMargin.pointMargin': 'marge nette {value}',
  'chart.separator': ', ',
  'chart.growthMargin.point': '{year} : {values}',

  'unit.points': '{n, plural, one {{value} point de pourcentage} other {{value} points de pourcentage}}',
  'unit.days': '{n, plural, one {{value} jour} other {{value} jours}}',
  'unit.months': '{n, plural, one {{value} mois} other {{value} mois}}',

  'about.prepared':
    'Ce rapport a été établi le {date} pour {company} à partir du profil et des chiffres fournis par l’entreprise ; aucune autre donnée n’a été utilisée. Les montants sont en {currency}, et les nombres et les dates suivent les conventions {locale}.',
  'about.method':
    'La croissance est la variation du chiffre d’affaires par rapport à l’année précédente. Le taux de croissance annuel composé est le taux annuel constant qui mène du chiffre d’affaires de la première année à celui de la dernière. La marge nette est le résultat net divisé par le chiffre d’affaires, et le chiffre d’affaires par salarié divise celui de la dernière année par l’effectif indiqué.',
  'about.tinyRevenue':
    'Un pourcentage d’un chiffre d’affaires inférieur à une unité de {currency} n’a pas de sens : une telle croissance et de telles marges sont indiquées par un tiret et exclues des moyennes.',
  'about.offline':
    'Le texte a été rédigé de façon déterministe à partir des chiffres (mode hors ligne), sans modèle d’IA : les mêmes chiffres donnent toujours le même rapport.',
  'about.offlineEnglish': 'Le rédacteur hors ligne n’écrit qu’en anglais : les sections sont donc en anglais, le reste du rapport en {language}.',
  'about.ai':
    'Le texte a été rédigé par un modèle d’IA{model, select, none {} other { ({model})}} en {language} à partir des chiffres de ce rapport, qu’il devait reprendre tels quels sans jamais rien y ajouter ; les chiffres, les tableaux et les graphiques sont calculés, non rédigés par le modèle.',
  'about.deterministic':
    'Les réponses du modèle pour {sections} n’avaient pas la structure requise : {count, plural, one {cette section a donc été rédigée} other {ces sections ont donc été rédigées}} de façon déterministe à partir des chiffres, en anglais.',
  'about.chartsMissing':
    'Les graphiques n’ont pas pu être produits lors de l’établissement de ce rapport (le service de graphiques était indisponible) ; chaque chiffre qu’ils montreraient figure dans les tableaux et le texte.',
  'about.chartsDropped':
    'Les graphiques n’ont pas pu être composés dans ce document ; chaque chiffre qu’ils montreraient figure dans les tableaux et le texte.',
  'about.scripts':
    'Une partie du texte transmis est écrite en {scripts}, que la police du rapport ({font} : latin, grec, cyrillique et plus) ne peut pas afficher ; elle apparaît sous le nom de l’écriture entre crochets, et le titre du document garde l’original.',
  'about.reference': 'Référence : {id}.',

  // The metric dictionary's labels (report/words.ts METRIC_DICTIONARY), by their English label.
  'metric.Gross margin': 'Marge brute',
  'metric.Net margin': 'Marge nette',
  'metric.Operating margin': 'Marge opérationnelle',
  'metric.EBITDA margin': 'Marge d’EBITDA',
  'metric.Customer retention': 'Fidélisation des clients',
  'metric.Retention rate': 'Taux de fidélisation',
  'metric.Customer churn': 'Attrition des clients',
  'metric.Revenue growth': 'Croissance du chiffre d’affaires',
  'metric.Market share': 'Part de marché',
  'metric.Employee turnover': 'Rotation du personnel',
  'metric.Utilization': 'Taux d’utilisation',
  'metric.Billable utilization': 'Taux d’utilisation facturable',
  'metric.On-time delivery': 'Livraisons à temps',
  'metric.Recurring revenue share': 'Part du chiffre d’affaires récurrent',
  'metric.Customer satisfaction': 'Satisfaction client',
  'metric.Net Promoter Score': 'Net Promoter Score',
  'metric.Customers': 'Clients',
  'metric.Active users': 'Utilisateurs actifs',
  'metric.Annual recurring revenue': 'Revenu récurrent annuel',
  'metric.Monthly recurring revenue': 'Revenu récurrent mensuel',
  'metric.Customer acquisition cost': 'Coût d’acquisition client',
  'metric.Customer lifetime value': 'Valeur vie client',
  'metric.Lifetime value to acquisition cost': 'Valeur vie client rapportée au coût d’acquisition',
  'metric.Average contract value': 'Valeur moyenne des contrats',
  'metric.Order backlog': 'Carnet de commandes',
  'metric.Inventory turnover': 'Rotation des stocks',
  'metric.Days sales outstanding': 'Délai moyen de recouvrement (DSO)',
  'metric.Payback period': 'Délai de récupération',

  // NAICS 2022 sectors (report/industries.ts), by code.
  'sector.11': 'Agriculture, foresterie, pêche et chasse',
  'sector.21': 'Extraction minière, exploitation en carrière, et extraction de pétrole et de gaz',
  'sector.22': 'Services publics',
  'sector.23': 'Construction',
  'sector.31-33': 'Fabrication',
  'sector.42': 'Commerce de gros',
  'sector.44-45': 'Commerce de détail',
  'sector.48-49': 'Transport et entreposage',
  'sector.51': 'Industrie de l’information et industrie culturelle',
  'sector.52': 'Finance et assurances',
  'sector.53': 'Services immobiliers et services de location et de location à bail',
  'sector.54': 'Services professionnels, scientifiques et techniques',
  'sector.55': 'Gestion de sociétés et d’entreprises',
  'sector.56': 'Services administratifs, services de soutien, services de gestion des déchets et services d’assainissement',
  'sector.61': 'Services d’enseignement',
  'sector.62': 'Soins de santé et assistance sociale',
  'sector.71': 'Arts, spectacles et loisirs',
  'sector.72': 'Services d’hébergement et de restauration',
  'sector.81': 'Autres services (sauf les administrations publiques)',
  'sector.92': 'Administrations publiques',

  'share.download': 'Télécharger le PDF',
  'share.headline': 'Chiffres clés',
  'share.figuresOf': '{section} : chiffres',
  'share.footer': 'Référence {id}. Partagé par un lien qui expire le {date}.',

  'email.readySubject': 'Votre rapport sur {company} est prêt',
  'email.ready': 'Votre rapport sur {company} est prêt.',
  'email.open': 'Ouvrez-le ici : {link}',
  'email.shareNote':
    'La page s’ouvre sur tout appareil sans connexion, pendant {days, plural, one {# jour} other {# jours}}, et contient le PDF. Toute personne à qui vous transférez ce lien peut lire le rapport jusque-là ; les liens de partage de votre rapport le listent et vous pouvez le révoquer.',
  'email.failedSubject': 'Votre rapport sur {company} n’a pas pu être produit',
  'email.failed': 'Votre rapport sur {company} n’a pas pu être produit.',
  'email.status': 'Son état : {link}',
  'email.tracking': 'Identifiant de suivi : {id}',
  'email.why': 'Vous recevez cet e-mail parce que vous avez demandé le rapport. Pour ne plus recevoir ces e-mails, désactivez-les avec',
  'failure.cancelled': 'Le rapport a été annulé par un administrateur.',
  'failure.timeout': 'La production du rapport a pris trop de temps et a été arrêtée.',
  'failure.aiService': 'Le service d’IA qui rédige le rapport a échoué.',
  'failure.rateLimit': 'Le service d’IA qui rédige le rapport était trop sollicité.',
  'failure.other': 'Le rapport n’a pas pu être produit à cause d’une erreur de notre côté.',
  'failure.whatNext': 'Indiquez son identifiant de suivi au support ; un administrateur peut le relancer.',
  'failure.ownerCancelled': 'Le rapport a été annulé à votre demande ; il n’est pas décompté de votre quota.',
};
