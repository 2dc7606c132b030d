/**
 * A small translation table for the sample script and the phrase bank (Thai and Spanish), so that the
 * demo shows a real translated transcript. Any other sentence or language gets a clearly marked
 * `[<lang>] ` prefix instead: the sandbox does not translate.
 */
export const PHRASE_TRANSLATIONS: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.freeze({
  // The sample's action items as the summary words them (imperative, no final period).
  'Prepare the rollback plan and share it by Friday': {
    th: 'เตรียมแผนย้อนกลับและส่งให้ภายในวันศุกร์',
    es: 'Preparar el plan de reversión y compartirlo antes del viernes',
  },
  'Finish the address form review by Thursday': {
    th: 'ตรวจฟอร์มที่อยู่ให้เสร็จภายในวันพฤหัสบดี',
    es: 'Terminar la revisión del formulario de dirección antes del jueves',
  },
  'Draft two subject lines for the test by Wednesday': {
    th: 'ร่างหัวเรื่องอีเมลสองแบบสำหรับการทดสอบภายในวันพุธ',
    es: 'Redactar dos líneas de asunto para la prueba antes del miércoles',
  },
  'Check with the growth team and report back by Monday': {
    th: 'สอบถามทีมฝ่ายเติบโตและรายงานกลับภายในวันจันทร์',
    es: 'Consultar con el equipo de crecimiento e informar antes del lunes',
  },
  "Good morning everyone. Let's start with the mobile checkout launch.": {
    th: 'สวัสดีตอนเช้าทุกคน เริ่มจากการเปิดตัวระบบชำระเงินบนมือถือกันก่อน',
    es: 'Buenos días a todos. Empecemos con el lanzamiento del pago móvil.',
  },
  'The payment integration is finished and the load tests passed last night.': {
    th: 'การเชื่อมต่อระบบชำระเงินเสร็จแล้ว และการทดสอบโหลดผ่านเมื่อคืนนี้',
    es: 'La integración de pagos está terminada y las pruebas de carga pasaron anoche.',
  },
  'The new checkout screens are ready, but the address form needs one more review.': {
    th: 'หน้าจอชำระเงินใหม่พร้อมแล้ว แต่ฟอร์มที่อยู่ยังต้องตรวจอีกหนึ่งรอบ',
    es: 'Las nuevas pantallas de pago están listas, pero el formulario de dirección necesita una revisión más.',
  },
  'Good. We decided to ship the new checkout to all users next Tuesday.': {
    th: 'ดีมาก เราตัดสินใจเปิดใช้ระบบชำระเงินใหม่กับผู้ใช้ทุกคนวันอังคารหน้า',
    es: 'Bien. Decidimos lanzar el nuevo pago a todos los usuarios el próximo martes.',
  },
  'I will prepare the rollback plan and share it by Friday.': {
    th: 'ผมจะเตรียมแผนย้อนกลับและส่งให้ภายในวันศุกร์',
    es: 'Prepararé el plan de reversión y lo compartiré antes del viernes.',
  },
  "I'll finish the address form review by Thursday.": {
    th: 'ฉันจะตรวจฟอร์มที่อยู่ให้เสร็จภายในวันพฤหัสบดี',
    es: 'Terminaré la revisión del formulario de dirección antes del jueves.',
  },
  'Next topic: the onboarding emails. Open rates dropped ten percent last month.': {
    th: 'หัวข้อถัดไป: อีเมลต้อนรับผู้ใช้ใหม่ อัตราการเปิดอ่านลดลงสิบเปอร์เซ็นต์เมื่อเดือนที่แล้ว',
    es: 'Siguiente tema: los correos de bienvenida. La tasa de apertura bajó un diez por ciento el mes pasado.',
  },
  'The subject lines are long and the first email arrives too late.': {
    th: 'หัวเรื่องอีเมลยาวเกินไป และอีเมลฉบับแรกส่งถึงช้าเกินไป',
    es: 'Los asuntos son largos y el primer correo llega demasiado tarde.',
  },
  'We agreed to send the welcome email within one hour of sign-up.': {
    th: 'เราตกลงกันว่าจะส่งอีเมลต้อนรับภายในหนึ่งชั่วโมงหลังสมัคร',
    es: 'Acordamos enviar el correo de bienvenida dentro de la primera hora tras el registro.',
  },
  "Let's go with shorter subject lines and test two versions.": {
    th: 'ใช้หัวเรื่องที่สั้นลงและทดสอบสองเวอร์ชันกัน',
    es: 'Optemos por asuntos más cortos y probemos dos versiones.',
  },
  "I'll draft two subject lines for the test by Wednesday.": {
    th: 'ฉันจะร่างหัวเรื่องสองแบบสำหรับการทดสอบภายในวันพุธ',
    es: 'Redactaré dos asuntos para la prueba antes del miércoles.',
  },
  'Last item: the pricing page. Do we show annual prices by default?': {
    th: 'หัวข้อสุดท้าย: หน้าราคา เราจะแสดงราคารายปีเป็นค่าเริ่มต้นไหม?',
    es: 'Último punto: la página de precios. ¿Mostramos los precios anuales por defecto?',
  },
  'I am not sure. Do we have data from the last pricing experiment?': {
    th: 'ผมไม่แน่ใจ เรามีข้อมูลจากการทดลองราคาครั้งล่าสุดไหม?',
    es: 'No estoy seguro. ¿Tenemos datos del último experimento de precios?',
  },
  'Not yet. Who owns the pricing experiment now?': {
    th: 'ยังไม่มี ตอนนี้ใครรับผิดชอบการทดลองราคา?',
    es: 'Todavía no. ¿Quién se encarga ahora del experimento de precios?',
  },
  'I will check with the growth team and report back by Monday.': {
    th: 'ฉันจะสอบถามทีมการเติบโตและรายงานกลับภายในวันจันทร์',
    es: 'Consultaré con el equipo de crecimiento e informaré antes del lunes.',
  },
  "Thanks everyone, that's all for today.": {
    th: 'ขอบคุณทุกคน วันนี้มีเท่านี้',
    es: 'Gracias a todos, eso es todo por hoy.',
  },
  "Let's start with the quarterly roadmap.": {
    th: 'เริ่มจากแผนงานรายไตรมาสกันก่อน',
    es: 'Empecemos con la hoja de ruta trimestral.',
  },
  'The first milestone is on track and the team is confident about the scope.': {
    th: 'เป้าหมายแรกเป็นไปตามแผน และทีมมั่นใจในขอบเขตงาน',
    es: 'El primer hito va según lo previsto y el equipo confía en el alcance.',
  },
  'Customer feedback on the beta has been mostly positive.': {
    th: 'ความคิดเห็นของลูกค้าต่อรุ่นเบต้าส่วนใหญ่เป็นไปในทางบวก',
    es: 'Los comentarios de los clientes sobre la beta han sido mayormente positivos.',
  },
  'We decided to postpone the reporting feature to the next quarter.': {
    th: 'เราตัดสินใจเลื่อนฟีเจอร์รายงานไปไตรมาสหน้า',
    es: 'Decidimos posponer la función de informes al próximo trimestre.',
  },
  'I will update the project plan by Friday.': {
    th: 'ผมจะอัปเดตแผนโครงการภายในวันศุกร์',
    es: 'Actualizaré el plan del proyecto antes del viernes.',
  },
  'Can we get more support from the data team?': {
    th: 'เราขอความช่วยเหลือจากทีมข้อมูลเพิ่มได้ไหม?',
    es: '¿Podemos conseguir más apoyo del equipo de datos?',
  },
  'Next topic: the hiring plan for the support team.': {
    th: 'หัวข้อถัดไป: แผนการจ้างงานของทีมซัพพอร์ต',
    es: 'Siguiente tema: el plan de contratación del equipo de soporte.',
  },
  'We need two more people before the summer.': {
    th: 'เราต้องการคนเพิ่มอีกสองคนก่อนหน้าร้อน',
    es: 'Necesitamos dos personas más antes del verano.',
  },
  'We agreed to open the positions this week.': {
    th: 'เราตกลงกันว่าจะเปิดรับสมัครตำแหน่งในสัปดาห์นี้',
    es: 'Acordamos abrir las vacantes esta semana.',
  },
  "I'll write the job descriptions by Wednesday.": {
    th: 'ฉันจะเขียนรายละเอียดงานภายในวันพุธ',
    es: 'Escribiré las descripciones de los puestos antes del miércoles.',
  },
  'What is the budget for contractors this year?': {
    th: 'งบประมาณสำหรับผู้รับจ้างปีนี้เท่าไร?',
    es: '¿Cuál es el presupuesto para contratistas este año?',
  },
  'Last item: the office move.': {
    th: 'หัวข้อสุดท้าย: การย้ายสำนักงาน',
    es: 'Último punto: la mudanza de la oficina.',
  },
  'The new office will be ready at the end of next month.': {
    th: 'สำนักงานใหม่จะพร้อมช่วงปลายเดือนหน้า',
    es: 'La nueva oficina estará lista a finales del próximo mes.',
  },
  'I will send the moving checklist to everyone by Monday.': {
    th: 'ผมจะส่งรายการตรวจสอบการย้ายให้ทุกคนภายในวันจันทร์',
    es: 'Enviaré la lista de la mudanza a todos antes del lunes.',
  },
  'Do we keep the old meeting rooms until then?': {
    th: 'เราจะเก็บห้องประชุมเดิมไว้จนถึงตอนนั้นไหม?',
    es: '¿Mantenemos las salas de reuniones antiguas hasta entonces?',
  },
  "Thanks everyone, let's wrap up here.": {
    th: 'ขอบคุณทุกคน จบการประชุมตรงนี้',
    es: 'Gracias a todos, terminemos aquí.',
  },
});

/** Source languages the sandbox reports for its own texts (the sample and the phrase bank are English). */
export const DETECTED_LANGUAGE = 'en';

/** The sentence in `language`: from the table, unchanged for the source language, else marked. */
export function translateText(text: string, language: string, sourceLanguage: string): string {
  if (language === sourceLanguage) return text;
  const known = PHRASE_TRANSLATIONS[text]?.[language];
  return known ?? `[${language}] ${text}`;
}
