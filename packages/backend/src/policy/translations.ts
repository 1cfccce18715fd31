import type { Translations } from "@svc/schema"

/*
 * Banner texts svc ships. The browser bundle carries English too; these are what `/manifest`
 * and `/init` publish, so a host that configures nothing still gets German and French.
 * Keys mirror the browser's (`banner.title`, `categories.marketing.description`, ...).
 */

const en: Translations = {
  banner: {
    title: "We value your privacy",
    description:
      "We use cookies and similar technologies to run this site and, with your permission, to measure its use, remember your settings and personalise content and ads.",
    acceptAll: "Accept all",
    rejectAll: "Reject all",
    customize: "Customize"
  },
  optOut: {
    title: "Your privacy choices",
    description:
      "We and our partners may sell or share personal information for targeted advertising. You can opt out at any time.",
    doNotSell: "Do not sell or share my personal information",
    dismiss: "OK",
    preferences: "Preferences"
  },
  dialog: {
    title: "Privacy preferences",
    description:
      "Choose which kinds of cookies and similar technologies this site may use. You can change this at any time.",
    save: "Save choices",
    acceptAll: "Accept all",
    rejectAll: "Reject all",
    close: "Close",
    alwaysOn: "Always on",
    gpc: "Off: your browser sends a Global Privacy Control signal.",
    vendors: "Used by: {vendors}"
  },
  widget: { label: "Privacy settings" },
  categories: {
    necessary: {
      title: "Strictly necessary",
      description: "Needed for the site to work, such as security and remembering this choice."
    },
    measurement: { title: "Measurement", description: "Statistics on how the site is used, to improve it." },
    marketing: {
      title: "Marketing",
      description: "Advertising, including personalised ads and measuring their performance."
    },
    functionality: {
      title: "Functionality",
      description: "Extra features such as chat, videos and remembered settings."
    },
    experience: { title: "Experience", description: "Personalised content and recommendations." }
  },
  iab: {
    description:
      "We and our {count} partners store and access information on a device, such as cookies, and process personal data such as unique identifiers and browsing data, for the purposes below. You can accept, reject, or choose; your choices apply to this site only.",
    purposes: "Purposes: {purposes}",
    vendors: "Partners ({count})",
    vendorPolicy: "Privacy policy",
    legitimateInterest: "Also relies on legitimate interest"
  }
}

const de: Translations = {
  banner: {
    title: "Wir respektieren Ihre Privatsphäre",
    description:
      "Wir verwenden Cookies und ähnliche Technologien, um diese Website zu betreiben und, mit Ihrer Erlaubnis, ihre Nutzung zu messen, Ihre Einstellungen zu speichern und Inhalte sowie Werbung zu personalisieren.",
    acceptAll: "Alle akzeptieren",
    rejectAll: "Alle ablehnen",
    customize: "Anpassen"
  },
  optOut: {
    title: "Ihre Datenschutzeinstellungen",
    description:
      "Wir und unsere Partner verkaufen oder teilen möglicherweise personenbezogene Daten für gezielte Werbung. Sie können jederzeit widersprechen.",
    doNotSell: "Meine personenbezogenen Daten nicht verkaufen oder teilen",
    dismiss: "OK",
    preferences: "Einstellungen"
  },
  dialog: {
    title: "Datenschutzeinstellungen",
    description:
      "Wählen Sie, welche Arten von Cookies und ähnlichen Technologien diese Website verwenden darf. Sie können dies jederzeit ändern.",
    save: "Auswahl speichern",
    acceptAll: "Alle akzeptieren",
    rejectAll: "Alle ablehnen",
    close: "Schließen",
    alwaysOn: "Immer aktiv",
    gpc: "Aus: Ihr Browser sendet ein Global-Privacy-Control-Signal.",
    vendors: "Verwendet von: {vendors}"
  },
  widget: { label: "Datenschutzeinstellungen" },
  categories: {
    necessary: {
      title: "Unbedingt erforderlich",
      description: "Für den Betrieb der Website nötig, etwa für Sicherheit und um diese Auswahl zu speichern."
    },
    measurement: { title: "Messung", description: "Statistiken zur Nutzung der Website, um sie zu verbessern." },
    marketing: {
      title: "Marketing",
      description: "Werbung, einschließlich personalisierter Anzeigen und der Messung ihrer Wirkung."
    },
    functionality: {
      title: "Funktionalität",
      description: "Zusätzliche Funktionen wie Chat, Videos und gespeicherte Einstellungen."
    },
    experience: { title: "Nutzererlebnis", description: "Personalisierte Inhalte und Empfehlungen." }
  },
  iab: {
    description:
      "Wir und unsere {count} Partner speichern Informationen auf einem Gerät und greifen darauf zu, etwa Cookies, und verarbeiten personenbezogene Daten wie eindeutige Kennungen und Browserdaten für die unten genannten Zwecke. Sie können zustimmen, ablehnen oder auswählen; Ihre Auswahl gilt nur für diese Website.",
    purposes: "Zwecke: {purposes}",
    vendors: "Partner ({count})",
    vendorPolicy: "Datenschutzerklärung",
    legitimateInterest: "Stützt sich auch auf berechtigtes Interesse"
  }
}

const fr: Translations = {
  banner: {
    title: "Nous respectons votre vie privée",
    description:
      "Nous utilisons des cookies et des technologies similaires pour faire fonctionner ce site et, avec votre accord, mesurer son utilisation, mémoriser vos réglages et personnaliser les contenus et les publicités.",
    acceptAll: "Tout accepter",
    rejectAll: "Tout refuser",
    customize: "Personnaliser"
  },
  optOut: {
    title: "Vos choix en matière de confidentialité",
    description:
      "Nos partenaires et nous pouvons vendre ou partager des données personnelles à des fins de publicité ciblée. Vous pouvez vous y opposer à tout moment.",
    doNotSell: "Ne pas vendre ni partager mes données personnelles",
    dismiss: "OK",
    preferences: "Préférences"
  },
  dialog: {
    title: "Préférences de confidentialité",
    description:
      "Choisissez les types de cookies et de technologies similaires que ce site peut utiliser. Vous pouvez modifier ce choix à tout moment.",
    save: "Enregistrer mes choix",
    acceptAll: "Tout accepter",
    rejectAll: "Tout refuser",
    close: "Fermer",
    alwaysOn: "Toujours actif",
    gpc: "Désactivé : votre navigateur envoie un signal Global Privacy Control.",
    vendors: "Utilisé par : {vendors}"
  },
  widget: { label: "Paramètres de confidentialité" },
  categories: {
    necessary: {
      title: "Strictement nécessaires",
      description: "Indispensables au fonctionnement du site, par exemple pour la sécurité et pour mémoriser ce choix."
    },
    measurement: {
      title: "Mesure d'audience",
      description: "Statistiques sur l'utilisation du site, pour l'améliorer."
    },
    marketing: {
      title: "Marketing",
      description: "Publicité, y compris les annonces personnalisées et la mesure de leurs performances."
    },
    functionality: {
      title: "Fonctionnalités",
      description: "Fonctions supplémentaires comme le chat, les vidéos et les réglages mémorisés."
    },
    experience: { title: "Expérience", description: "Contenus et recommandations personnalisés." }
  },
  iab: {
    description:
      "Nos {count} partenaires et nous stockons des informations sur un appareil et y accédons, comme les cookies, et traitons des données personnelles telles que des identifiants uniques et des données de navigation, pour les finalités ci-dessous. Vous pouvez accepter, refuser ou choisir ; vos choix ne valent que pour ce site.",
    purposes: "Finalités : {purposes}",
    vendors: "Partenaires ({count})",
    vendorPolicy: "Politique de confidentialité",
    legitimateInterest: "Repose aussi sur l'intérêt légitime"
  }
}

export const DEFAULT_LANGUAGE = "en"

/** Texts shipped with svc, by language. */
export const shippedTranslations: Readonly<Record<string, Translations>> = { en, de, fr }

/** `b` over `a`, nested tables merged key by key; neither input is modified. */
export const mergeTranslations = (a: Translations | undefined, b: Translations | undefined): Translations => {
  if (a === undefined) return b ?? {}
  if (b === undefined) return a
  const out: Record<string, string | Translations> = { ...a }
  for (const [key, value] of Object.entries(b)) {
    const current = out[key]
    out[key] = typeof value === "object" && typeof current === "object" ? mergeTranslations(current, value) : value
  }
  return out
}

/** `pt-BR` → [`pt`, `pt-BR`]: the chain a language falls back along, most general first. */
export const languageChain = (language: string): ReadonlyArray<string> => {
  const parts = language.split("-")
  return parts.map((_, i) => parts.slice(0, i + 1).join("-"))
}
