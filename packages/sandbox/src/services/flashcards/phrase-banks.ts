/**
 * Short everyday phrases per source language, with word-level pronunciations and meanings in the target
 * languages of the learning directions and in English: the material the deterministic "transcription"
 * of a video is drawn from.
 */

export type FlashcardLanguage = 'th' | 'zh' | 'vi' | 'ko' | 'ja';
type Meanings = Partial<Record<FlashcardLanguage, string>> & { en: string };

export interface BankWord {
  word: string;
  pronunciation: string;
  meanings: Meanings;
}

export interface BankPhrase {
  text: string;
  translations: Meanings;
  words: BankWord[];
}

const w = (word: string, pronunciation: string, meanings: Meanings): BankWord => ({
  word,
  pronunciation,
  meanings,
});

export const PHRASE_BANKS: Record<'th' | 'zh' | 'ko' | 'ja', BankPhrase[]> = {
  th: [
    {
      text: 'สวัสดีครับ',
      translations: { zh: '你好', en: 'Hello' },
      words: [
        w('สวัสดี', 'sawatdi', { zh: '你好', en: 'hello' }),
        w('ครับ', 'khrap', { zh: '（礼貌语气词）', en: 'polite particle' }),
      ],
    },
    {
      text: 'วันนี้อากาศดี',
      translations: { zh: '今天天气很好', en: 'The weather is nice today' },
      words: [
        w('วันนี้', 'wan ni', { zh: '今天', en: 'today' }),
        w('อากาศ', 'a-kat', { zh: '天气', en: 'weather' }),
        w('ดี', 'di', { zh: '好', en: 'good' }),
      ],
    },
    {
      text: 'ฉันชอบกินข้าว',
      translations: { zh: '我喜欢吃饭', en: 'I like to eat rice' },
      words: [
        w('ฉัน', 'chan', { zh: '我', en: 'I' }),
        w('ชอบ', 'chop', { zh: '喜欢', en: 'like' }),
        w('กิน', 'kin', { zh: '吃', en: 'eat' }),
        w('ข้าว', 'khao', { zh: '米饭', en: 'rice' }),
      ],
    },
    {
      text: 'ขอบคุณมาก',
      translations: { zh: '非常感谢', en: 'Thank you very much' },
      words: [
        w('ขอบคุณ', 'khop khun', { zh: '谢谢', en: 'thank you' }),
        w('มาก', 'mak', { zh: '非常', en: 'very' }),
      ],
    },
    {
      text: 'ไปตลาดกัน',
      translations: { zh: '一起去市场吧', en: "Let's go to the market" },
      words: [
        w('ไป', 'pai', { zh: '去', en: 'go' }),
        w('ตลาด', 'talat', { zh: '市场', en: 'market' }),
        w('กัน', 'kan', { zh: '一起', en: 'together' }),
      ],
    },
  ],
  zh: [
    {
      text: '你好朋友',
      translations: { th: 'สวัสดีเพื่อน', vi: 'Xin chào bạn', en: 'Hello, friend' },
      words: [
        w('你好', 'nǐ hǎo', { th: 'สวัสดี', vi: 'xin chào', en: 'hello' }),
        w('朋友', 'péngyou', { th: 'เพื่อน', vi: 'bạn', en: 'friend' }),
      ],
    },
    {
      text: '今天天气很好',
      translations: {
        th: 'วันนี้อากาศดีมาก',
        vi: 'Hôm nay thời tiết rất đẹp',
        en: 'The weather is very nice today',
      },
      words: [
        w('今天', 'jīntiān', { th: 'วันนี้', vi: 'hôm nay', en: 'today' }),
        w('天气', 'tiānqì', { th: 'อากาศ', vi: 'thời tiết', en: 'weather' }),
        w('很', 'hěn', { th: 'มาก', vi: 'rất', en: 'very' }),
        w('好', 'hǎo', { th: 'ดี', vi: 'tốt', en: 'good' }),
      ],
    },
    {
      text: '我喜欢学习中文',
      translations: { th: 'ฉันชอบเรียนภาษาจีน', vi: 'Tôi thích học tiếng Trung', en: 'I like studying Chinese' },
      words: [
        w('我', 'wǒ', { th: 'ฉัน', vi: 'tôi', en: 'I' }),
        w('喜欢', 'xǐhuan', { th: 'ชอบ', vi: 'thích', en: 'like' }),
        w('学习', 'xuéxí', { th: 'เรียน', vi: 'học', en: 'study' }),
        w('中文', 'zhōngwén', { th: 'ภาษาจีน', vi: 'tiếng Trung', en: 'Chinese' }),
      ],
    },
    {
      text: '谢谢你',
      translations: { th: 'ขอบคุณ', vi: 'Cảm ơn bạn', en: 'Thank you' },
      words: [
        w('谢谢', 'xièxie', { th: 'ขอบคุณ', vi: 'cảm ơn', en: 'thanks' }),
        w('你', 'nǐ', { th: 'คุณ', vi: 'bạn', en: 'you' }),
      ],
    },
    {
      text: '我们去吃饭吧',
      translations: { th: 'ไปกินข้าวกันเถอะ', vi: 'Chúng ta đi ăn cơm nhé', en: "Let's go and eat" },
      words: [
        w('我们', 'wǒmen', { th: 'พวกเรา', vi: 'chúng ta', en: 'we' }),
        w('去', 'qù', { th: 'ไป', vi: 'đi', en: 'go' }),
        w('吃饭', 'chīfàn', { th: 'กินข้าว', vi: 'ăn cơm', en: 'eat a meal' }),
        w('吧', 'ba', { th: 'เถอะ', vi: 'nhé', en: 'suggestion particle' }),
      ],
    },
  ],
  ko: [
    {
      text: '안녕하세요',
      translations: { zh: '你好', en: 'Hello' },
      words: [w('안녕하세요', 'annyeonghaseyo', { zh: '你好', en: 'hello' })],
    },
    {
      text: '오늘 날씨가 좋아요',
      translations: { zh: '今天天气很好', en: 'The weather is nice today' },
      words: [
        w('오늘', 'oneul', { zh: '今天', en: 'today' }),
        w('날씨가', 'nalssiga', { zh: '天气', en: 'the weather' }),
        w('좋아요', 'joayo', { zh: '好', en: 'is good' }),
      ],
    },
    {
      text: '저는 한국어를 공부해요',
      translations: { zh: '我学习韩语', en: 'I study Korean' },
      words: [
        w('저는', 'jeoneun', { zh: '我', en: 'I' }),
        w('한국어를', 'hangugeoreul', { zh: '韩语', en: 'Korean' }),
        w('공부해요', 'gongbuhaeyo', { zh: '学习', en: 'study' }),
      ],
    },
    {
      text: '감사합니다',
      translations: { zh: '谢谢', en: 'Thank you' },
      words: [w('감사합니다', 'gamsahamnida', { zh: '谢谢', en: 'thank you' })],
    },
    {
      text: '같이 밥 먹어요',
      translations: { zh: '一起吃饭吧', en: "Let's eat together" },
      words: [
        w('같이', 'gachi', { zh: '一起', en: 'together' }),
        w('밥', 'bap', { zh: '饭', en: 'meal' }),
        w('먹어요', 'meogeoyo', { zh: '吃', en: 'eat' }),
      ],
    },
  ],
  ja: [
    {
      text: 'こんにちは',
      translations: { zh: '你好', en: 'Hello' },
      words: [w('こんにちは', 'konnichiwa', { zh: '你好', en: 'hello' })],
    },
    {
      text: '今日はいい天気です',
      translations: { zh: '今天天气很好', en: 'It is nice weather today' },
      words: [
        w('今日', 'kyō', { zh: '今天', en: 'today' }),
        w('は', 'wa', { zh: '（话题助词）', en: 'topic particle' }),
        w('いい', 'ii', { zh: '好', en: 'good' }),
        w('天気', 'tenki', { zh: '天气', en: 'weather' }),
        w('です', 'desu', { zh: '是', en: 'is' }),
      ],
    },
    {
      text: '日本語を勉強します',
      translations: { zh: '我学习日语', en: 'I study Japanese' },
      words: [
        w('日本語', 'nihongo', { zh: '日语', en: 'Japanese' }),
        w('を', 'o', { zh: '（宾格助词）', en: 'object particle' }),
        w('勉強', 'benkyō', { zh: '学习', en: 'study' }),
        w('します', 'shimasu', { zh: '做', en: 'do' }),
      ],
    },
    {
      text: 'ありがとうございます',
      translations: { zh: '谢谢', en: 'Thank you' },
      words: [
        w('ありがとう', 'arigatō', { zh: '谢谢', en: 'thanks' }),
        w('ございます', 'gozaimasu', { zh: '（敬语）', en: 'polite ending' }),
      ],
    },
    {
      text: '一緒に行きましょう',
      translations: { zh: '一起去吧', en: "Let's go together" },
      words: [
        w('一緒', 'issho', { zh: '一起', en: 'together' }),
        w('に', 'ni', { zh: '（助词）', en: 'particle' }),
        w('行きましょう', 'ikimashō', { zh: '去吧', en: "let's go" }),
      ],
    },
  ],
};

/** How words of a language are joined into text (no spaces in Thai, Chinese, Japanese). */
export const WORD_JOINER: Record<FlashcardLanguage, string> = { th: '', zh: '', ja: '', ko: ' ', vi: ' ' };
