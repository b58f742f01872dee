/**
 * Word lists for the name extractor. A name is told apart from the rest of a sentence by what it is not:
 * function words, verbs, question words and the admissions vocabulary, in Indonesian and English. Words
 * that are also common given names stay out of these lists on purpose (budi, indah, bagus, putri, dewi,
 * kasih, untung, will, may, grace, ...): the extractor would rather miss a sentence than a name.
 */

/** Words that end (or rule out) a name: "nama saya Budi dan ..." stops at "dan"; "saya mau ..." is no name. */
export const NOT_NAME_WORDS: ReadonlySet<string> = new Set(
  `
  saya aku gue gua gw ane kami kita anda kamu kau dia beliau mereka ini itu tersebut
  yang dan atau serta dengan untuk buat bagi dari di ke pada dalam oleh tentang sebagai karena kalau jika
  sudah udah belum tidak tak nggak ngga gak ga enggak engga bukan jangan
  mau ingin pengen pingin hendak akan bisa dapat boleh harus perlu butuh sedang lagi masih baru pernah sering
  selalu hanya cuma saja aja sih dong deh kok lho kan nih tuh yah ya iya yup ok oke okay okey baiklah siap sip
  halo hallo helo hai hay hei selamat pagi siang sore malam terima makasih thx tq trims
  tanya bertanya menanyakan nanya info informasi daftar mendaftar pendaftaran terdaftar registrasi
  kuliah berkuliah kampus universitas biaya harga uang bayar beasiswa jurusan prodi program studi fakultas
  jadwal lokasi alamat dimana mana apa apakah berapa bagaimana gimana gmn kapan kenapa mengapa siapa
  tahu tau kenal mengerti paham bingung tertarik minat berminat senang suka cari mencari lihat melihat
  lulusan lulus siswa siswi mahasiswa mahasiswi murid pelajar calon orangtua orang tua wali anak teman guru
  sekolah sma smk smp kelas tahun bulan hari minggu besok kemarin sekarang nanti tadi dulu sini situ sana
  email e-mail surel nomor no nomer hp wa whatsapp telepon telp telpon kontak nama lengkap panggilan
  admin cs staf staff petugas manusia operator orangnya tolong mohon maaf permisi punya ada sama
  tinggal berasal asal domisili umur usia kerja bekerja karyawan pegawai rencana izin coba kirim beri kasi
  sebentar juga lalu terus kemudian sangat sekali banget agak cukup lebih kurang paling semua setiap
  satu dua tiga empat lima enam tujuh delapan sembilan sepuluh
  teknik informatika manajemen akuntansi hukum kedokteran ekonomi psikologi sistem ilmu komputer bisnis
  desain komunikasi farmasi keperawatan sastra pendidikan arsitektur
  haha hehe hihi wkwk wkwkwk
  i im i'm i’m me my mine am is are was were be been being the a an and or of to for from in on at with by
  about as your yours you we they he she it its it's this that these those there here what which who whom
  how when where why do does did done not no yes yeah yep nope sure fine good great thanks thank please
  hello hi hey want wanted would like register registration apply application enroll enrol sign
  interested looking ask asking question questions information know tell help need fees fee cost price
  tuition programme programs programmes course courses major schedule location address campus visit
  student students parent parents just new calling writing glad happy sorry also still going trying
  name full email phone number contact call called
  `
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

/**
 * Titles before a name ("nama saya Pak Budi"): dropped when a name follows, never a name on their own.
 */
export const HONORIFICS: ReadonlySet<string> = new Set([
  'pak',
  'bapak',
  'bu',
  'ibu',
  'mas',
  'mbak',
  'mba',
  'kak',
  'kakak',
  'dik',
  'adik',
  'bang',
  'abang',
  'om',
  'tante',
  'mr',
  'mrs',
  'ms',
  'miss',
  'mister',
  'sir',
  'madam',
  'dr',
  'prof',
]);

/**
 * Words that may sit around a bare name given in answer to "what is your name?" ("Budi Santoso, email
 * budi@example.com"): removed before the rest must read as a name.
 */
export const BARE_NAME_FILLERS: ReadonlySet<string> = new Set([
  'email',
  'e-mail',
  'emailnya',
  'surel',
  'no',
  'nomor',
  'nomer',
  'hp',
  'wa',
  'telp',
  'dan',
  'and',
  'phone',
]);
