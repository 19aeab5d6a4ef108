// The benign corpus: what a protected site's ordinary visitors send, written here as data. Each group
// says what it stands for; the requests carry what real browsers and API clients put in them (their
// headers, consent and analytics cookies, quotes in names, angle brackets in comments), since a WAF's
// false positives come from exactly those. Expanded into a few hundred requests by benignRequests().

export interface BenignRequest {
  /** browsing, assets, api, forms, search. */
  group: string;
  /** What the request stands for, shown next to a false positive. */
  standsFor: string;
  method: string;
  /** Path and query, already encoded as the client sends it. */
  target: string;
  headers: [string, string][];
  body?: string;
}

/** A browser's navigation headers (the versions current in late 2024). */
interface Browser {
  name: string;
  navigate: [string, string][];
  /** What it sends for a stylesheet, script, image or font, apart from its User-Agent. */
  asset: (kind: 'style' | 'script' | 'image' | 'font') => [string, string][];
}

const chromeUa = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const firefoxUa = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const safariUa = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const chromeHints: [string, string][] = [
  ['sec-ch-ua', '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"'],
  ['sec-ch-ua-mobile', '?0'],
  ['sec-ch-ua-platform', '"Windows"'],
];
const assetAccept = { style: 'text/css,*/*;q=0.1', script: '*/*', image: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8', font: '*/*' };

const browsers: Browser[] = [
  {
    name: 'Chrome 131 on Windows',
    navigate: [
      ['Connection', 'keep-alive'],
      ...chromeHints,
      ['Upgrade-Insecure-Requests', '1'],
      ['User-Agent', chromeUa],
      ['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7'],
      ['Sec-Fetch-Site', 'same-origin'],
      ['Sec-Fetch-Mode', 'navigate'],
      ['Sec-Fetch-User', '?1'],
      ['Sec-Fetch-Dest', 'document'],
      ['Referer', 'https://www.shop.example/'],
      ['Accept-Encoding', 'gzip, deflate, br, zstd'],
      ['Accept-Language', 'en-GB,en-US;q=0.9,en;q=0.8,fr;q=0.7'],
    ],
    asset: (kind) => [...chromeHints, ['User-Agent', chromeUa], ['Accept', assetAccept[kind]], ['Sec-Fetch-Site', 'same-origin'], ['Sec-Fetch-Mode', kind === 'font' ? 'cors' : 'no-cors'], ['Sec-Fetch-Dest', kind], ['Referer', 'https://www.shop.example/products/'], ['Accept-Encoding', 'gzip, deflate, br, zstd'], ['Accept-Language', 'en-GB,en-US;q=0.9,en;q=0.8']],
  },
  {
    name: 'Firefox 133 on Linux',
    navigate: [
      ['User-Agent', firefoxUa],
      ['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
      ['Accept-Language', 'de-DE,de;q=0.8,en-US;q=0.5,en;q=0.3'],
      ['Accept-Encoding', 'gzip, deflate, br, zstd'],
      ['Referer', 'https://www.shop.example/blog/'],
      ['DNT', '1'],
      ['Sec-GPC', '1'],
      ['Connection', 'keep-alive'],
      ['Upgrade-Insecure-Requests', '1'],
      ['Sec-Fetch-Dest', 'document'],
      ['Sec-Fetch-Mode', 'navigate'],
      ['Sec-Fetch-Site', 'same-origin'],
      ['Sec-Fetch-User', '?1'],
      ['Priority', 'u=0, i'],
    ],
    asset: (kind) => [['User-Agent', firefoxUa], ['Accept', assetAccept[kind]], ['Accept-Language', 'de-DE,de;q=0.8,en-US;q=0.5,en;q=0.3'], ['Accept-Encoding', 'gzip, deflate, br, zstd'], ['Referer', 'https://www.shop.example/'], ['Sec-Fetch-Dest', kind], ['Sec-Fetch-Mode', 'no-cors'], ['Sec-Fetch-Site', 'same-origin']],
  },
  {
    name: 'Safari 18 on iPhone',
    navigate: [
      ['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
      ['Sec-Fetch-Site', 'same-origin'],
      ['Sec-Fetch-Dest', 'document'],
      ['Accept-Language', 'fr-FR,fr;q=0.9'],
      ['Sec-Fetch-Mode', 'navigate'],
      ['User-Agent', safariUa],
      ['Referer', 'https://www.shop.example/'],
      ['Accept-Encoding', 'gzip, deflate, br'],
      ['Connection', 'keep-alive'],
    ],
    asset: (kind) => [['User-Agent', safariUa], ['Accept', assetAccept[kind]], ['Referer', 'https://www.shop.example/'], ['Accept-Language', 'fr-FR,fr;q=0.9'], ['Accept-Encoding', 'gzip, deflate, br']],
  },
];

/**
 * Cookies a shop's visitor carries: analytics ids, a consent record (URL-encoded JSON, as consent
 * managers store it), a signed session, a cart, UI preferences. One set per browser.
 */
const cookieJars = [
  '_ga=GA1.1.1843920571.1731412800; _ga_X1Y2Z3=GS1.1.1732010000.4.1.1732010500.0.0.0; cookieconsent_status=%7B%22necessary%22%3Atrue%2C%22analytics%22%3Atrue%2C%22marketing%22%3Afalse%7D; session=eyJ1c2VyIjo0MiwibmFtZSI6Ik8nQnJpZW4ifQ.ZzT2qA.kM3vC8x4H9n0b1Qw-Ue7rT2yLpA; cart_id=c7f3a1e2-9b4d-4e8a-a6f1-2d3c4b5a6e7f',
  'theme=dark; lang=de; sessionid=8f14e45fceea167a5a36dedd4bea2543; csrftoken=Hq3Jv9XbT2kL8mNpQr4sUw6yZa1cDe5F; recently_viewed=1042%2C1043%2C2210; _pk_id.1.1fff=3c2b1a0f9e8d7c6b.1731412800.',
  'JSESSIONID=A1B2C3D4E5F6A7B8C9D0E1F2A3B4C5D6; currency=EUR; country=FR; _fbp=fb.1.1731412800000.1234567890; euconsent-v2=CQH1wAAQH1wAAAKA1AENBOFgAP_AAEPAACiQKNNX_G__bWlr8X73aftkeY1P9_h77sQxBhfJE-4FzLuW_JwXx2ExNA36tqIKmRIEu3bBIQNlHJDUTVCgaogVryDMakWcoTNKJ6BkiFMRM2dYCF5vm4tj-QKY5vr991dx2B-t7dr83dzyz4VHn3a5_2a0WJCdA5-tDfv9bROb-9IOd_x8v4v8_F_rE2_eT1l_tevp7D9-cts7_XW-9_fff79Ll9-_____-A'
];

const pages = [
  ['/', 'the home page'],
  ['/products/', 'a product listing'],
  ['/products/shoes?color=red&size=42&sort=price_asc', 'a filtered, sorted listing'],
  ['/products/1042-trail-runner-gtx', 'a product page with its slug'],
  ['/products/2210-o-brien-tweed-cap?ref=home_carousel', 'a product named after a person, from a carousel'],
  ['/category/kitchen/knives-and-blocks?page=3', 'page 3 of a category'],
  ['/blog/2024/11/how-to-bake-sourdough-bread', 'a blog post'],
  ['/blog/tag/c%2B%2B', 'a tag with an encoded plus sign'],
  ['/blog/2024/10/why-select-a-union-made-jacket', 'a post whose slug holds select and union'],
  ['/account/orders?page=2&per_page=20', 'an account page'],
  ['/account/settings?tab=notifications', 'a settings page'],
  ['/cart', 'the cart'],
  ['/checkout/shipping', 'checkout, shipping step'],
  ['/help/returns-and-refunds', 'a help article'],
  ['/help/faq?topic=delivery&q=where%27s+my+order', 'a FAQ with an apostrophe in its query'],
  ['/stores/paris-3e-arrondissement', 'a store page'],
  ['/about/careers/software-engineer-backend-m-f-d', 'a job ad'],
  ['/de/produkte/gr%C3%BCner-tee', 'a localised page with UTF-8 in the path'],
  ['/ja/%E5%95%86%E5%93%81/%E7%B7%91%E8%8C%B6', 'a Japanese page'],
  ['/wishlist?share=ZGFuaWVsLm9icmllbg%3D%3D', 'a shared wishlist, base64 token'],
  ['/products/compare?ids=1042,1043,2210', 'a comparison of three products'],
  ['/events/2024-12-24/christmas-eve-opening-hours', 'an event page'],
  ['/login?next=%2Faccount%2Forders%3Fpage%3D2', 'a login page with its return path'],
  ['/oauth/callback?code=4%2F0AeanS0Z2kLm8&state=af0ifjsldkj&scope=email+profile', 'an OAuth redirect'],
  ['/unsubscribe?email=jane.doe%2Bnews%40example.com&token=7c4a8d09ca3762af61e59520943dc26494f8941b', 'an unsubscribe link'],
  ['/track?utm_source=newsletter&utm_medium=email&utm_campaign=black_friday_2024&utm_content=hero-%3C3', 'campaign parameters, one holding <3'],
  ['/recipes/mac-n-cheese-with-5-cheeses', 'a recipe'],
  ['/docs/api/v2/select-fields', 'documentation about selecting fields'],
  ['/docs/guides/drop-shipping-101', 'a guide on drop shipping'],
  ['/sitemap.xml', 'the sitemap'],
] as const;

const assets: [string, 'style' | 'script' | 'image' | 'font'][] = [
  ['/static/css/main.4f2a9c1b.css', 'style'],
  ['/static/css/vendor.css?v=3.2.1', 'style'],
  ['/static/js/runtime.8e3d.js', 'script'],
  ['/static/js/main.4f2a9c1b.chunk.js', 'script'],
  ['/static/js/vendor~checkout.js?ver=6.4.2', 'script'],
  ['/assets/fonts/inter-var-latin.woff2', 'font'],
  ['/assets/fonts/NotoSansJP-Regular.woff2?display=swap', 'font'],
  ['/images/products/1042/main@2x.jpg', 'image'],
  ['/images/products/1042/thumb_320x320.webp', 'image'],
  ['/images/banners/black-friday-2024.avif', 'image'],
  ['/images/icons/sprite.svg', 'image'],
  ['/favicon.ico', 'image'],
  ['/apple-touch-icon.png', 'image'],
  ['/cdn-cgi/image/width=640,quality=75,format=auto/images/hero.jpg', 'image'],
  ['/_next/image?url=%2Fimages%2Fhero.png&w=1920&q=75', 'image'],
  ['/_next/static/chunks/pages/_app-a1b2c3d4e5f6.js', 'script'],
  ['/wp-content/themes/storefront/style.css?ver=4.6.0', 'style'],
  ['/wp-includes/js/jquery/jquery.min.js?ver=3.7.1', 'script'],
  ['/media/catalog/product/cache/1/image/9df78eab33525d08d6e5fb8d27136e95/o/b/obrien-cap.jpg', 'image'],
  ['/static/img/logo.svg', 'image'],
];

/** JSON bodies an API or a single-page app posts: names and text with quotes, tags and non-Latin scripts. */
const jsonBodies: [string, string, string, unknown][] = [
  ['POST', '/api/v1/customers', 'a customer with an apostrophe in the name', { first_name: 'Seán', last_name: "O'Brien", email: 'sean.obrien@example.ie' }],
  ['POST', '/api/v1/customers', 'a customer with a hyphenated, accented name', { first_name: 'Zoë', last_name: 'Müller-Lüdenscheidt', email: 'zoe@example.de' }],
  ['POST', '/api/v1/customers', 'a Japanese customer', { first_name: '太郎', last_name: '山田', email: 'taro@example.jp', phone: '+81 90-1234-5678' }],
  ['POST', '/api/v1/customers', 'an Arabic customer', { first_name: 'محمد', last_name: 'العلي', email: 'm.alali@example.ae' }],
  ['POST', '/api/v1/customers', 'a Greek customer', { first_name: 'Γιώργος', last_name: 'Παπαδόπουλος', email: 'g.papa@example.gr' }],
  ['POST', '/api/v1/reviews', 'a review with quotes and <3', { product: 1042, rating: 5, title: 'Best "trail" shoes ever <3', body: "I've worn them for 300 km and they're still great. Highly recommend!" }],
  ['POST', '/api/v1/reviews', 'a review comparing with a < b', { product: 1043, rating: 3, title: 'Good, but price > value', body: 'Size 42 < size 43 in length, so order one up. Quality is 7/10 & delivery was fast.' }],
  ['POST', '/api/v1/reviews', 'a review with an emoji and ellipsis', { product: 2210, rating: 4, title: 'Cosy 🧢', body: 'Nice cap… runs a bit small; my wife says it\'s "très chic".' }],
  ['POST', '/api/v1/comments', 'a comment quoting HTML as text', { post: 77, text: 'Use the <strong> tag, not <b>, for emphasis in your template.' }],
  ['POST', '/api/v1/comments', 'a comment about SQL in prose', { post: 78, text: 'We select the best beans and drop them into the roaster; union members run the plant.' }],
  ['POST', '/api/v1/comments', 'a comment with a URL', { post: 79, text: 'See https://en.wikipedia.org/wiki/Sourdough for the history.' }],
  ['POST', '/api/v1/orders', 'an order with nested items and an address', { items: [{ sku: 'TR-1042-42', qty: 1 }, { sku: 'CAP-2210-M', qty: 2 }], shipping: { name: "Mary-Kate O'Neil", line1: '12 Rue de l\'Église', line2: 'Bât. B, 3e étage', city: 'Paris', postcode: '75003', country: 'FR' }, notes: 'Leave at the door if no answer; code #4521' }],
  ['POST', '/api/v1/orders', 'an order with a gift message', { items: [{ sku: 'KN-0007', qty: 1 }], gift: true, message: 'Happy birthday, Dad! Love, Ann & Tom (and the dog)' }],
  ['PUT', '/api/v1/customers/42/address', 'an address update with a PO box', { line1: 'P.O. Box 1234', city: "Coeur d'Alene", state: 'ID', zip: '83814' }],
  ['PATCH', '/api/v1/customers/42', 'a profile patch with a bio', { bio: 'Backend dev @ Example Corp. Rust & Go. Opinions are mine; coffee is not.' }],
  ['PATCH', '/api/v1/settings', 'settings with booleans and nulls', { newsletter: false, theme: 'dark', locale: 'pt-BR', timezone: 'America/Sao_Paulo', avatar: null }],
  ['POST', '/api/v1/search', 'a structured search', { query: 'running shoes', filters: { size: [42, 43], color: 'red', price: { min: 50, max: 120 } }, sort: '-rating', page: 1 }],
  ['POST', '/api/v1/events', 'an analytics event batch', { events: [{ type: 'page_view', path: '/products/1042', ts: 1732010000123 }, { type: 'add_to_cart', sku: 'TR-1042-42', value: 119.9 }] }],
  ['POST', '/api/v1/support/tickets', 'a support ticket with punctuation', { subject: "Order #10442 hasn't arrived", message: 'Hi, I ordered on 12/11 (Tue) and tracking says "delivered" - but it\'s not here?! Please help :(' }],
  ['POST', '/api/v1/support/tickets', 'a ticket pasting an error message', { subject: 'Checkout error', message: 'The page said: Error 500 - something went wrong. Please try again later.' }],
  ['POST', '/api/v1/auth/login', 'a login with a strong password', { username: 'jane.doe@example.com', password: "c0rrect-H0rse_battery'staple!" }],
  ['POST', '/api/v1/auth/register', 'a registration with symbols in the password', { email: 'li.wei@example.cn', password: 'P@ssw0rd#2024&more', name: '李伟' }],
  ['POST', '/api/v1/graphql', 'a GraphQL query', { query: 'query Product($id: ID!) { product(id: $id) { name price reviews(first: 5) { rating title } } }', variables: { id: '1042' } }],
  ['POST', '/api/v1/graphql', 'a GraphQL mutation', { query: 'mutation AddToCart($sku: String!, $qty: Int!) { addToCart(sku: $sku, qty: $qty) { cartId total } }', variables: { sku: 'CAP-2210-M', qty: 1 } }],
  ['POST', '/api/v1/newsletter', 'a newsletter sign-up with a plus address', { email: 'jane.doe+news@example.com', consent: true }],
  ['POST', '/api/v1/recipes', 'a recipe with fractions and degrees', { title: 'Mac & cheese', steps: ['Boil pasta 8–10 min', 'Bake at 180 °C for 20 min', 'Serve ½ portion per child'] }],
  ['POST', '/api/v1/translations', 'translations with quotes in several languages', { en: '"Add to cart"', fr: '« Ajouter au panier »', de: '„In den Warenkorb“', ja: '「カートに入れる」' }],
  ['POST', '/api/v1/notes', 'a note with Markdown', { text: '## Shopping list\n- eggs (x12)\n- flour > 1 kg\n- *don\'t* forget milk\n\n> remember the coupon' }],
  ['POST', '/api/v1/contacts/import', 'a contact list with names that look like code', { contacts: [{ name: 'Robert Tables' }, { name: 'Null Smith' }, { name: 'Alert Johnson' }] }],
  ['POST', '/api/v1/feedback', 'feedback with a smiley and a math aside', { score: 9, comment: 'Great UX :-) though 2 < 3 clicks would be nicer for re-ordering.' }],
];

/** Form submissions (application/x-www-form-urlencoded, as a browser encodes them). */
const forms: [string, string, Record<string, string>][] = [
  ['/contact', 'a contact form from Mr O\'Brien', { name: "Patrick O'Brien", email: 'pat@example.ie', message: "Hi, I'd like to know when the tweed cap is back in stock. Thanks!" }],
  ['/contact', 'a message saying a < b', { name: 'Ann Lee', email: 'ann@example.com', message: 'Quick question: if a < b and b < c, is the XL really bigger than the L? :)' }],
  ['/contact', 'a message with <3', { name: 'Mia', email: 'mia@example.com', message: 'Love your shop <3 <3 <3' }],
  ['/contact', 'a message with quotes and a question', { name: 'Dr. J. "Jim" Smith', email: 'jim@example.org', message: 'Is "waterproof" really waterproof, or just "water-resistant"?' }],
  ['/checkout/address', 'a shipping address with an apostrophe and a flat number', { full_name: "D'Angelo Rossi", line1: 'Flat 3/12, 221B Baker St.', city: 'London', postcode: 'NW1 6XE', country: 'GB', phone: '+44 20 7946 0958' }],
  ['/checkout/address', 'an address with accents and a comma', { full_name: 'François Lefèvre', line1: "8, rue de l'Hôtel-de-Ville", city: 'Lyon', postcode: '69001', country: 'FR' }],
  ['/checkout/address', 'a US address with a suite and a hash', { full_name: 'Chris P. Bacon', line1: '1600 Amphitheatre Pkwy, Suite #100', city: 'Mountain View', state: 'CA', zip: '94043' }],
  ['/checkout/address', 'a German address with ß', { full_name: 'Jürgen Groß', line1: 'Hauptstraße 5a', city: 'München', postcode: '80331', country: 'DE' }],
  ['/checkout/payment', 'card details (test numbers)', { card_name: 'JANE Q PUBLIC', card_number: '4111 1111 1111 1111', exp: '12/27', cvc: '123' }],
  ['/comments/post', 'a blog comment with punctuation', { author: 'Sam', comment: "Great post! I've tried this recipe twice -- the 2nd time with 20% more water -- and it's way better. Question: 180°C or 200°C?" }],
  ['/comments/post', 'a comment with an ellipsis, semicolons and parentheses', { author: 'K. Tanaka', comment: 'Hmm... not sure; my loaf (the one from step 3) collapsed. Any tips?' }],
  ['/comments/post', 'a comment mentioning scripts', { author: 'devnull', comment: 'The script on your site runs slowly on my old phone, maybe lazy-load the images?' }],
  ['/comments/post', 'a comment mentioning SQL in prose', { author: 'Dana', comment: 'Select your flour carefully: union of rye and wheat works; drop the sugar or delete it entirely.' }],
  ['/comments/post', 'a comment with an email and a URL', { author: 'Lee', comment: 'Write me at lee@example.com or see https://example.com/my-loaf.jpg' }],
  ['/account/profile', 'a profile with a bio', { display_name: 'Zoë', bio: 'Runner, baker & amateur photographer. She/her. "Carpe diem."', website: 'https://zoe.example' }],
  ['/account/password', 'a password change with symbols', { current: 'OldP@ss1!', new: "N3w'P@ss\"word<2024>", confirm: "N3w'P@ss\"word<2024>" }],
  ['/login', 'a login form', { username: 'jane.doe@example.com', password: 'hunter2!', remember: 'on' }],
  ['/register', 'a registration with a hyphenated name', { first: 'Anne-Marie', last: "O'Connor-Smith", email: 'am@example.ie', password: 'Sup3r$ecret' }],
  ['/newsletter', 'a newsletter sign-up', { email: 'first.last+shop@example.co.uk', frequency: 'weekly' }],
  ['/reviews/new', 'a review with a rating and a title in quotes', { rating: '4', title: '"Good value"', body: 'Fits true to size. Colour is a bit darker than the photo (more navy than blue).' }],
  ['/reviews/new', 'a review in French', { rating: '5', title: 'Très bien !', body: "C'est exactement ce que je cherchais ; livraison rapide." }],
  ['/reviews/new', 'a review in Chinese', { rating: '5', title: '很好', body: '质量很好，物流也快。' }],
  ['/support/ticket', 'a ticket with an order number and a path', { order: '#10442', message: 'The invoice at /account/invoices/10442.pdf shows the wrong VAT (20% vs 5.5%).' }],
  ['/support/ticket', 'a ticket describing a page', { order: '', message: 'On the cart page the "Apply" button does nothing when the code has a dash, e.g. SAVE-10.' }],
  ['/gift-cards/redeem', 'a gift card code', { code: 'GIFT-7H3K-9QWZ-2024', pin: '0042' }],
  ['/wishlist/add', 'a wishlist note', { product: '2210', note: "For Dad's birthday (size M, not L!)" }],
  ['/survey', 'a survey with free text', { q1: 'Very satisfied', q2: '9', q3: 'Prices could be lower & shipping faster; otherwise 10/10.' }],
  ['/events/rsvp', 'an RSVP with a dietary note', { name: 'Priya Patel', guests: '2', diet: 'vegetarian; no nuts (allergy)' }],
  ['/jobs/apply', 'a job application cover letter', { name: 'Alex Kim', cover: "Dear hiring manager,\r\n\r\nI'm applying for the backend role. I've built APIs in Go & TypeScript for 6 years.\r\n\r\nBest,\r\nAlex" }],
  ['/forum/reply', 'a forum reply quoting code in prose', { thread: '981', body: 'Use a for loop: for i in range(10): print(i) -- works in Python 3.' }],
];

/** Multipart forms (a browser's file upload), with Chrome's boundary style. */
const multipartForms: [string, string, [string, string, string?][]][] = [
  ['/account/avatar', 'an avatar upload with a caption', [['caption', "Me at O'Hare, 2024"], ['avatar', 'GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'me.gif']]],
  ['/support/attachments', 'a support attachment (a text file)', [['ticket', '10442'], ['file', 'Order #10442\nItems: cap (M), shoes (42)\nIssue: not delivered\n', 'order-10442.txt']]],
  ['/jobs/apply', 'a CV upload with a name', [['name', 'José Álvarez'], ['email', 'jose@example.es'], ['cv', '%PDF-1.4\n% fake but harmless CV\n', 'CV José Álvarez.pdf']]],
  ['/reviews/photos', 'a review photo', [['review', '5531'], ['alt', 'The cap, on a <wooden> table'], ['photo', '\xff\xd8\xff\xe0 JFIF', 'cap.jpg']]],
  ['/import/contacts', 'a CSV import', [['format', 'csv'], ['file', 'name,email\n"O\'Brien, Pat",pat@example.ie\n"Lee; Ann",ann@example.com\n', 'contacts.csv']]],
];

/** Searches people type into a shop's box: punctuation, SQL and HTML words in everyday meanings. */
const searches = [
  'running shoes', "men's trail runners size 42", 'rock & roll t-shirt', 'c++ for dummies', "don't stop believin' vinyl", 'what is 5% of 200',
  'select comfort mattress', 'union jack flag', 'drop shipping', 'how to delete my account', 'script writing course', 'alert bracelet',
  'table and chairs set', 'insert for boots', 'update firmware', 'or else jacket', 'and or but', 'from dusk till dawn dvd',
  "o'brien cap", 'l\'oréal shampoo', 'café au lait mug', 'naïve art print', 'crème brûlée torch', '日本茶', 'кроссовки', 'حذاء رياضي',
  'size 10 1/2', '2 < 3 kids puzzle', 'love <3 necklace', '"exact phrase" search', 'usb-c to hdmi (4k)', 'wifi 6e router 2.4/5/6 ghz',
  '50% off', '$20 gift card', 'email@example.com', '#blackfriday', '@nike', 'AT&T phone case', 'Q&A', 'tom & jerry',
  'sleeping bag -10°c', 'kids 3+ toys', 'lego 42115', 'iphone 16 pro max case', 'mac n cheese', 'r&b playlist', 'x-large hoodie',
  'where to buy', 'is it waterproof?', 'shoes; sandals', 'red, white & blue', 'the who t-shirt', 'echo dot', 'exec chair', 'system of a down',
  'cat toys', 'ls 1 engine', 'wget', 'java coffee beans', 'python book', 'union square hotels', 'select all', 'benchmark',
];

/** Searches as a browser's GET form sends them, and as an app's fetch does (JSON API). */
function searchRequests(browser: Browser, cookie: string, i: number): BenignRequest[] {
  const q = searches[i]!;
  return [
    { group: 'search', standsFor: `a search for ${JSON.stringify(q)}`, method: 'GET', target: `/search?${new URLSearchParams({ q, page: String((i % 3) + 1) }).toString()}`, headers: [...browser.navigate, ['Cookie', cookie]] },
    { group: 'search', standsFor: `the autocomplete request for ${JSON.stringify(q)}`, method: 'GET', target: `/api/v1/suggest?term=${encodeURIComponent(q)}&limit=8`, headers: [['Accept', 'application/json'], ['X-Requested-With', 'XMLHttpRequest'], ...browser.asset('script'), ['Cookie', cookie]] },
  ];
}

const apiHeaders = (browser: Browser, cookie: string, i: number): [string, string][] => [
  ['Content-Type', 'application/json'],
  ['Accept', 'application/json, text/plain, */*'],
  ['Origin', 'https://www.shop.example'],
  ['X-CSRF-Token', 'Hq3Jv9XbT2kL8mNpQr4sUw6yZa1cDe5F'],
  ...browser.asset('script').filter(([n]) => n !== 'Accept'),
  // Single-page apps send a cookie; API clients a bearer token.
  i % 2 === 0 ? ['Cookie', cookie] : ['Authorization', 'Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI0MiIsIm5hbWUiOiJPJ0JyaWVuIiwiaWF0IjoxNzMyMDEwMDAwfQ.8yQYV2bO1k3n0Hq1oV5bPqRzL9fMxM8Xn1c2mB3y0Q4'],
];

function multipartBody(parts: [string, string, string?][], boundary: string): string {
  return `${parts
    .map(([name, value, file]) =>
      file === undefined
        ? `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
        : `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${file}"\r\nContent-Type: ${file.endsWith('.txt') || file.endsWith('.csv') ? 'text/plain' : 'application/octet-stream'}\r\n\r\n${value}\r\n`,
    )
    .join('')}--${boundary}--\r\n`;
}

/** The benign corpus, in a fixed order (no randomness: both subjects and every run see the same requests). */
export function benignRequests(): BenignRequest[] {
  const out: BenignRequest[] = [];
  const at = (i: number) => ({ browser: browsers[i % browsers.length]!, cookie: cookieJars[i % cookieJars.length]! });
  // Every page from every browser: the bulk of a site's traffic.
  for (const [b, browser] of browsers.entries()) {
    for (const [target, what] of pages) out.push({ group: 'browsing', standsFor: `${what}, ${browser.name}`, method: 'GET', target, headers: [...browser.navigate, ['Cookie', cookieJars[b]!]] });
  }
  // The assets of those pages, each from two browsers.
  for (const [i, [target, kind]] of assets.entries()) {
    for (const j of [i, i + 1]) {
      const { browser, cookie } = at(j);
      out.push({ group: 'assets', standsFor: `a ${kind} (${target.split('?')[0]!.split('/').pop()}), ${browser.name}`, method: 'GET', target, headers: [...browser.asset(kind), ['Cookie', cookie]] });
    }
  }
  for (const [i, [method, target, what, body]] of jsonBodies.entries()) {
    const { browser, cookie } = at(i);
    out.push({ group: 'api', standsFor: `API JSON: ${what}`, method, target, headers: apiHeaders(browser, cookie, i), body: JSON.stringify(body) });
    // The same resource read back, as the app does after writing it.
    out.push({ group: 'api', standsFor: `API GET after ${what}`, method: 'GET', target: `${target}?fields=id,name,updated_at&include=items`, headers: apiHeaders(browser, cookie, i).filter(([n]) => n !== 'Content-Type') });
  }
  for (const [i, [target, what, fields]] of forms.entries()) {
    for (const j of [i, i + 1]) {
      const { browser, cookie } = at(j);
      const headers: [string, string][] = [['Content-Type', 'application/x-www-form-urlencoded'], ['Origin', 'https://www.shop.example'], ...browser.navigate, ['Cookie', cookie]];
      out.push({ group: 'forms', standsFor: `form: ${what}, ${browser.name}`, method: 'POST', target, headers, body: new URLSearchParams({ ...fields, csrf_token: 'Hq3Jv9XbT2kL8mNpQr4sUw6yZa1cDe5F' }).toString() });
    }
  }
  for (const [i, [target, what, parts]] of multipartForms.entries()) {
    const { browser, cookie } = at(i);
    const boundary = `----WebKitFormBoundary${['7MA4YWxkTrZu0gW', 'x8Kd2LqPzR1mN0aB', 'Qw3Er5Ty7Ui9Op1A', 'Zx2Cv4Bn6Mm8Ll0K', 'As1Df3Gh5Jk7Lq9W'][i]!}`;
    out.push({ group: 'forms', standsFor: `multipart form: ${what}`, method: 'POST', target, headers: [['Content-Type', `multipart/form-data; boundary=${boundary}`], ['Origin', 'https://www.shop.example'], ...browser.navigate, ['Cookie', cookie]], body: multipartBody(parts, boundary) });
  }
  for (let i = 0; i < searches.length; i++) {
    const { browser, cookie } = at(i);
    out.push(...searchRequests(browser, cookie, i));
  }
  return out;
}

/** A benign request's bytes, to `host`, keep-alive (HTTP/1.1). */
export function benignBytes(request: BenignRequest, host: string): Buffer {
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
  const fields = [['Host', host], ...request.headers.filter(([n]) => n !== 'Connection'), ...(body === undefined ? [] : [['Content-Length', String(body.length)]])];
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${fields.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'utf8'), body ?? Buffer.alloc(0)]);
}
