/**
 * Every text the kiosk shows, in one table: English, Spanish and Italian (the event's `language` is
 * the default; guests switch on screen). The service speaks English: its guest-facing answers are
 * shown as it words them in English, and by their `code` from this table in the other languages.
 */
export type Language = 'en' | 'es' | 'it'

export const LANGUAGES: readonly { code: Language; name: string }[] = [
  { code: 'en', name: 'English' },
  { code: 'es', name: 'Español' },
  { code: 'it', name: 'Italiano' },
]

type Texts = {
  languageSwitch: string
  welcome: string
  start: string
  formTitle: string
  guest: (n: number) => string
  name: string
  email: string
  phone: string
  contactHint: string
  marketing: (business: string | undefined) => string
  listed: string
  addGuest: string
  removeGuest: (n: number) => string
  guestsCount: (n: number) => string
  noticeLine: string
  readNotice: string
  noticeTitle: string
  noticeScan: string
  noticeVersion: (version: string) => string
  close: string
  submit: string
  sending: string
  cancel: string
  thanks: (label: string) => string
  sentTo: string
  queuedNote: string
  nextGroup: string
  // Field messages: the service's English answers, by their codes.
  nameRequired: string
  invalidEmail: string
  invalidPhone: (input: string) => string
  missingContact: (name: string) => string
  noSuchSet: string
  unknownNotice: string
  tryAgain: string
  fixFields: (n: number) => string
  // The kiosk's own state, for staff.
  loading: string
  unreachable: string
  retry: string
  noSuchKiosk: string
  notAKioskAddress: string
  online: string
  offline: string
  waiting: (n: number) => string
  refused: (n: number) => string
}

const en: Texts = {
  languageSwitch: 'Language',
  welcome: 'Get your photos sent to you',
  start: 'Start',
  formTitle: 'Who is in the photos?',
  guest: (n) => `Guest ${n}`,
  name: 'Name',
  email: 'Email',
  phone: 'Mobile phone',
  contactHint: 'An email or a mobile phone, for your photos',
  marketing: (business) => (business ? `Send me news and offers from ${business}` : 'Send me news and offers'),
  listed: 'Show my photos on the event’s page',
  addGuest: 'Add a guest',
  removeGuest: (n) => `Remove guest ${n}`,
  guestsCount: (n) => (n === 1 ? '1 guest' : `${n} guests`),
  noticeLine: 'We use your details only to send you your photos.',
  readNotice: 'Privacy notice',
  noticeTitle: 'Privacy notice',
  noticeScan: 'Scan to read it on your phone',
  noticeVersion: (version) => `Version ${version}`,
  close: 'Close',
  submit: 'Send me my photos',
  sending: 'Sending…',
  cancel: 'Start over',
  thanks: (label) => `Thank you, ${label}!`,
  sentTo: 'Your photos will be sent to',
  queuedNote: 'They will go out as soon as the kiosk is back online.',
  nextGroup: 'Next group',
  nameRequired: 'Name is required',
  invalidEmail: 'Invalid email address',
  invalidPhone: (input) => `This doesn't look like a phone number: ${input}`,
  missingContact: (name) => `${name} needs an email or a phone number`,
  noSuchSet: 'This kiosk’s set no longer exists. Please ask a member of staff.',
  unknownNotice: 'The privacy notice has changed. Please read it again, then send.',
  tryAgain: 'Something went wrong. Please try again.',
  fixFields: (n) => (n === 1 ? 'Please check the field marked below.' : `Please check the ${n} fields marked below.`),
  loading: 'Loading…',
  unreachable: 'This kiosk cannot reach the service yet.',
  retry: 'Try again',
  noSuchKiosk: 'This kiosk address names no set. Check the kiosk link in the staff console.',
  notAKioskAddress: 'Open this kiosk from a set’s kiosk link: /kiosk/<event>/<set>.',
  online: 'Online',
  offline: 'Offline: registrations are kept on this tablet',
  waiting: (n) => (n === 1 ? '1 group waiting to send' : `${n} groups waiting to send`),
  refused: (n) => (n === 1 ? '1 registration refused: see staff' : `${n} registrations refused: see staff`),
}

const es: Texts = {
  languageSwitch: 'Idioma',
  welcome: 'Recibe tus fotos',
  start: 'Empezar',
  formTitle: '¿Quién sale en las fotos?',
  guest: (n) => `Invitado ${n}`,
  name: 'Nombre',
  email: 'Correo electrónico',
  phone: 'Móvil',
  contactHint: 'Un correo o un móvil, para tus fotos',
  marketing: (business) => (business ? `Quiero recibir novedades y ofertas de ${business}` : 'Quiero recibir novedades y ofertas'),
  listed: 'Mostrar mis fotos en la página del evento',
  addGuest: 'Añadir invitado',
  removeGuest: (n) => `Quitar invitado ${n}`,
  guestsCount: (n) => (n === 1 ? '1 invitado' : `${n} invitados`),
  noticeLine: 'Usamos tus datos solo para enviarte tus fotos.',
  readNotice: 'Aviso de privacidad',
  noticeTitle: 'Aviso de privacidad',
  noticeScan: 'Escanea para leerlo en tu móvil',
  noticeVersion: (version) => `Versión ${version}`,
  close: 'Cerrar',
  submit: 'Enviarme mis fotos',
  sending: 'Enviando…',
  cancel: 'Volver a empezar',
  thanks: (label) => `¡Gracias, ${label}!`,
  sentTo: 'Tus fotos se enviarán a',
  queuedNote: 'Saldrán en cuanto el quiosco vuelva a tener conexión.',
  nextGroup: 'Siguiente grupo',
  nameRequired: 'El nombre es obligatorio',
  invalidEmail: 'Correo electrónico no válido',
  invalidPhone: (input) => `Esto no parece un número de teléfono: ${input}`,
  missingContact: (name) => `${name} necesita un correo o un teléfono`,
  noSuchSet: 'El set de este quiosco ya no existe. Pide ayuda al personal.',
  unknownNotice: 'El aviso de privacidad ha cambiado. Léelo de nuevo y envía.',
  tryAgain: 'Algo ha fallado. Inténtalo de nuevo.',
  fixFields: (n) => (n === 1 ? 'Revisa el campo marcado abajo.' : `Revisa los ${n} campos marcados abajo.`),
  loading: 'Cargando…',
  unreachable: 'Este quiosco aún no puede conectar con el servicio.',
  retry: 'Reintentar',
  noSuchKiosk: 'Esta dirección de quiosco no corresponde a ningún set.',
  notAKioskAddress: 'Abre este quiosco desde el enlace de un set: /kiosk/<evento>/<set>.',
  online: 'En línea',
  offline: 'Sin conexión: los registros se guardan en esta tableta',
  waiting: (n) => (n === 1 ? '1 grupo pendiente de envío' : `${n} grupos pendientes de envío`),
  refused: (n) => (n === 1 ? '1 registro rechazado: avisa al personal' : `${n} registros rechazados: avisa al personal`),
}

const it: Texts = {
  languageSwitch: 'Lingua',
  welcome: 'Ricevi le tue foto',
  start: 'Inizia',
  formTitle: 'Chi c’è nelle foto?',
  guest: (n) => `Ospite ${n}`,
  name: 'Nome',
  email: 'Email',
  phone: 'Cellulare',
  contactHint: 'Un’email o un cellulare, per le tue foto',
  marketing: (business) => (business ? `Voglio ricevere novità e offerte da ${business}` : 'Voglio ricevere novità e offerte'),
  listed: 'Mostra le mie foto sulla pagina dell’evento',
  addGuest: 'Aggiungi un ospite',
  removeGuest: (n) => `Rimuovi ospite ${n}`,
  guestsCount: (n) => (n === 1 ? '1 ospite' : `${n} ospiti`),
  noticeLine: 'Usiamo i tuoi dati solo per inviarti le foto.',
  readNotice: 'Informativa privacy',
  noticeTitle: 'Informativa privacy',
  noticeScan: 'Inquadra per leggerla sul telefono',
  noticeVersion: (version) => `Versione ${version}`,
  close: 'Chiudi',
  submit: 'Inviami le foto',
  sending: 'Invio…',
  cancel: 'Ricomincia',
  thanks: (label) => `Grazie, ${label}!`,
  sentTo: 'Le tue foto saranno inviate a',
  queuedNote: 'Partiranno appena il chiosco tornerà online.',
  nextGroup: 'Gruppo successivo',
  nameRequired: 'Il nome è obbligatorio',
  invalidEmail: 'Indirizzo email non valido',
  invalidPhone: (input) => `Questo non sembra un numero di telefono: ${input}`,
  missingContact: (name) => `${name} ha bisogno di un’email o di un telefono`,
  noSuchSet: 'Il set di questo chiosco non esiste più. Chiedi allo staff.',
  unknownNotice: 'L’informativa privacy è cambiata. Rileggila, poi invia.',
  tryAgain: 'Qualcosa non ha funzionato. Riprova.',
  fixFields: (n) => (n === 1 ? 'Controlla il campo segnato qui sotto.' : `Controlla i ${n} campi segnati qui sotto.`),
  loading: 'Caricamento…',
  unreachable: 'Questo chiosco non raggiunge ancora il servizio.',
  retry: 'Riprova',
  noSuchKiosk: 'Questo indirizzo di chiosco non corrisponde a nessun set.',
  notAKioskAddress: 'Apri il chiosco dal link di un set: /kiosk/<evento>/<set>.',
  online: 'Online',
  offline: 'Offline: le registrazioni restano su questo tablet',
  waiting: (n) => (n === 1 ? '1 gruppo in attesa di invio' : `${n} gruppi in attesa di invio`),
  refused: (n) => (n === 1 ? '1 registrazione rifiutata: chiedi allo staff' : `${n} registrazioni rifiutate: chiedi allo staff`),
}

export const TEXTS: Record<Language, Texts> = { en, es, it }

export const isLanguage = (value: unknown): value is Language => value === 'en' || value === 'es' || value === 'it'
