import { pick, type Random } from './seed-random.ts';

/**
 * The words the staff API benchmark's seed is written with: contact names, phone numbers, e-mail addresses
 * and message texts in the shape of a university admissions line, so text search has names, numbers and
 * phrases to find.
 */

const FIRST_NAMES =
  'Adi Agus Ahmad Aisyah Andi Anisa Ayu Bagus Bayu Budi Citra Dewi Dian Dimas Eka Fajar Fitri Galih Gita Hadi Hana Indah Intan Joko Kartika Lestari Maya Muhammad Nabila Nanda Nur Putri Putra Rahmat Rani Reza Rina Rizky Sari Siti Sri Taufik Tika Umar Wahyu Wulan Yoga Yudi Yuni Zahra'.split(
    ' ',
  );
const LAST_NAMES =
  'Saputra Wijaya Pratama Santoso Hidayat Nugroho Kusuma Lestari Permana Setiawan Utami Wibowo Siregar Nasution Harahap Simanjuntak Rahayu Gunawan Halim Susanto Purnomo Hakim Firmansyah Syahputra Maharani Ramadhan Kurniawan Anggraini Fauzi Wardani Sihombing Tanjung Hutapea Manurung Pane Daulay Lubis Batubara Sinaga Tambunan'.split(
    ' ',
  );
export const CITIES =
  'Medan Jakarta Bandung Surabaya Yogyakarta Semarang Makassar Palembang Padang Pekanbaru Balikpapan Denpasar Malang Solo Pontianak Manado Banjarmasin Jambi Batam Kupang'.split(
    ' ',
  );
const PROGRAMS =
  'Teknik Informatika, Sistem Informasi, Manajemen, Akuntansi, Hukum, Kedokteran, Farmasi, Psikologi, Ilmu Komunikasi, Teknik Sipil, Arsitektur, Desain Komunikasi Visual'.split(
    ', ',
  );
const DOMAINS = ['gmail.com', 'yahoo.co.id', 'gmail.com', 'outlook.com', 'gmail.com', 'ymail.com'];
export const INTENTS =
  'askFees askSchedule askPrograms askLocation wantRegister generalInfo thanks greeting sharePersonalInfo wantVisitCampus askHuman'.split(
    ' ',
  );

/** A person's name: one or two words. */
export function personName(random: Random): string {
  const first = pick(random, FIRST_NAMES);
  return random() < 0.8 ? `${first} ${pick(random, LAST_NAMES)}` : first;
}

/** A mobile number in the 62-prefixed form the capture flow stores (62 8xx, 10 to 12 digits after 62). */
export function phoneNumber(random: Random): string {
  const digits = 9 + Math.floor(random() * 3);
  let number = '628' + String(1 + Math.floor(random() * 9));
  while (number.length < digits + 2) number += String(Math.floor(random() * 10));
  return number;
}

/** An address made from the name, as people pick them. */
export function emailFor(random: Random, name: string): string {
  const local = name.toLowerCase().replace(/ /g, random() < 0.5 ? '.' : '');
  const suffix = random() < 0.6 ? String(Math.floor(random() * 2000)) : '';
  return `${local}${suffix}@${pick(random, DOMAINS)}`;
}

/** What a prospective student writes (Indonesian mostly, English sometimes). */
export function inboundText(random: Random, contact: { name: string | null; phone: string | null }): string {
  const program = pick(random, PROGRAMS);
  const name = contact.name ?? personName(random);
  const roll = Math.floor(random() * 12);
  switch (roll) {
    case 0:
      return `halo kak, saya ${name}, mau tanya biaya kuliah jurusan ${program}`;
    case 1:
      return `berapa biaya pendaftaran untuk ${program}?`;
    case 2:
      return `nomor wa saya ${contact.phone ?? phoneNumber(random)}, tolong hubungi ya`;
    case 3:
      return `email saya ${emailFor(random, name)}`;
    case 4:
      return `kapan jadwal tes masuk gelombang ${1 + Math.floor(random() * 3)}?`;
    case 5:
      return `lokasi kampus di ${pick(random, CITIES)} di mana ya min?`;
    case 6:
      return 'terima kasih infonya kak';
    case 7:
      return `saya mau daftar ${program}, caranya gimana?`;
    case 8:
      return 'bisa bicara dengan admin?';
    case 9:
      return 'pagi min, apakah ada beasiswa untuk jalur prestasi?';
    case 10:
      return `Hi, I would like to know the tuition fees for ${program}`;
    default:
      return `nama saya ${name}`;
  }
}

/** The bot's answer, or an agent's reply. */
export function outboundText(
  random: Random,
  contact: { name: string | null; phone: string | null },
  agent: string | null,
): string {
  const first = contact.name?.split(' ')[0] ?? 'kak';
  if (agent) {
    return `Baik kak ${first}, saya ${agent} dari tim admisi, nanti saya hubungi di ${contact.phone ?? 'nomor ini'} ya`;
  }
  const roll = Math.floor(random() * 5);
  switch (roll) {
    case 0:
      return `Halo ${first}! Biaya kuliah ${pick(random, PROGRAMS)} mulai Rp ${4 + Math.floor(random() * 12)}.500.000 per semester.`;
    case 1:
      return `Terima kasih, ${first}. Boleh kami minta alamat email Anda?`;
    case 2:
      return `Jadwal tes gelombang ${1 + Math.floor(random() * 3)} dibuka mulai tanggal ${1 + Math.floor(random() * 28)}.`;
    case 3:
      return `Kampus kami di Jl. Merdeka No. ${1 + Math.floor(random() * 200)}, ${pick(random, CITIES)}.`;
    default:
      return 'Ada lagi yang bisa kami bantu?';
  }
}

/** A staff note on a lead. */
export function leadNote(random: Random): string {
  return `Sudah ditelepon, tertarik ${pick(random, PROGRAMS)}; follow up minggu depan.`;
}
