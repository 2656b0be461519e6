/** The three themes (professional, executive, corporate): five colours, background, grid, text colour and font family each; their values are part of the published contract. */
export interface Theme {
  name: ThemeName;
  colors: readonly [string, string, string, string, string];
  backgroundColor: string;
  gridColor: string;
  textColor: string;
  fontFamily: string;
}

export const THEME_NAMES = ['professional', 'executive', 'corporate'] as const;
export type ThemeName = (typeof THEME_NAMES)[number];

export const THEMES: Record<ThemeName, Theme> = {
  professional: {
    name: 'professional',
    colors: ['#1f4788', '#4472C4', '#70AD47', '#FFC000', '#C5504B'],
    backgroundColor: 'white',
    gridColor: '#E7E6E6',
    textColor: '#333333',
    fontFamily: 'Arial, sans-serif',
  },
  executive: {
    name: 'executive',
    colors: ['#2B579A', '#5B9BD5', '#A5A5A5', '#FFC000', '#FF6B6B'],
    backgroundColor: '#FAFAFA',
    gridColor: '#CCCCCC',
    textColor: '#262626',
    fontFamily: 'Segoe UI, sans-serif',
  },
  corporate: {
    name: 'corporate',
    colors: ['#0078D4', '#107C10', '#FFB900', '#D13438', '#B146C2'],
    backgroundColor: 'white',
    gridColor: '#D1D1D1',
    textColor: '#323130',
    fontFamily: 'Calibri, sans-serif',
  },
};

/** An unknown (or missing) theme uses professional. */
export function themeOf(name: unknown): Theme {
  return typeof name === 'string' && (THEME_NAMES as readonly string[]).includes(name) ? THEMES[name as ThemeName] : THEMES.professional;
}
