// Surface tables for crumb_gen: labels, people, places, products, greetings, sign-offs and the
// value pools behind the {placeholders}. Every entry is kAll (may appear in any split), kHeld
// (held out: appears only in the test split) or kDev (held out from the other three: appears only
// in the dev split). The held-out material is listed in data/crumb/README.md; change both
// together. Pure data, no logic.
#pragma once

#include <span>

namespace router::crumb {

// The eight labels, in the order the issue fixes.
enum Label : int {
  kRefundItem,
  kRefundDeliveryFee,
  kReplaceItem,
  kCancelOrder,
  kChangeOrder,
  kOrderStatus,
  kFeedback,
  kGeneralInquiry,
  kNumLabels
};
inline constexpr const char* kLabelNames[kNumLabels] = {
    "refund_item",  "refund_delivery_fee", "replace_item", "cancel_order",
    "change_order", "order_status",        "feedback",     "general_inquiry"};

enum class Use : unsigned char { kAll, kHeld, kDev };
inline constexpr Use kAll = Use::kAll;
inline constexpr Use kHeld = Use::kHeld;
inline constexpr Use kDev = Use::kDev;

struct Entry {
  Use use;
  const char* text;
};

// Where the order stands when the customer writes; picks the opener and subject lines.
enum class Situation : unsigned char { kDelivered, kUpcoming, kDueToday, kNone };

// ---- People and places --------------------------------------------------------------------------

inline constexpr Entry kFirstNames[] = {
    {kAll, "Priya"},    {kAll, "Rohan"},     {kAll, "Aditi"},     {kAll, "Sneha"},
    {kAll, "Amit"},     {kAll, "Neha"},      {kAll, "Vikram"},    {kAll, "Ananya"},
    {kAll, "Kunal"},    {kAll, "Pooja"},     {kAll, "Rahul"},     {kAll, "Shreya"},
    {kAll, "Arjun"},    {kAll, "Meera"},     {kAll, "Siddharth"}, {kAll, "Kavya"},
    {kAll, "Nikhil"},   {kAll, "Ishita"},    {kAll, "Harsh"},     {kAll, "Riya"},
    {kAll, "Tanvi"},    {kAll, "Omkar"},     {kAll, "Swati"},     {kAll, "Yash"},
    {kAll, "Divya"},    {kAll, "Manish"},    {kAll, "Ayesha"},    {kAll, "Farhan"},
    {kAll, "Sameer"},   {kAll, "Anjali"},    {kAll, "Varun"},     {kAll, "Deepika"},
    {kAll, "Akash"},    {kAll, "Prachi"},    {kAll, "Mohit"},     {kAll, "Sonal"},
    {kAll, "Tejas"},    {kAll, "Rutuja"},    {kAll, "Abhishek"},  {kAll, "Nandini"},
    {kAll, "Chinmay"},  {kAll, "Gurpreet"},  {kHeld, "Aarti"},    {kHeld, "Sanket"},
    {kHeld, "Madhura"}, {kHeld, "Pranav"},   {kHeld, "Gauri"},    {kHeld, "Hrishikesh"},
    {kHeld, "Mitali"},  {kHeld, "Saurabh"},  {kHeld, "Ketaki"},   {kHeld, "Ninad"},
    {kHeld, "Zoya"},    {kHeld, "Imran"},    {kHeld, "Fatima"},   {kHeld, "Jaspreet"},
    {kHeld, "Lavanya"}, {kHeld, "Devendra"}, {kHeld, "Bhakti"},   {kHeld, "Kedar"},
    {kHeld, "Ritika"},  {kHeld, "Vedant"},   {kDev, "Tejaswini"}, {kDev, "Aniket"},
    {kDev, "Sayali"},   {kDev, "Rushikesh"}, {kDev, "Mrunal"},    {kDev, "Parth"},
    {kDev, "Sakshi"},   {kDev, "Heena"},     {kDev, "Salman"},    {kDev, "Simran"},
    {kDev, "Girish"},   {kDev, "Pallavi"},   {kDev, "Ashwin"},    {kDev, "Rasika"},
};

inline constexpr Entry kSurnames[] = {
    {kAll, "Sharma"},    {kAll, "Kulkarni"},  {kAll, "Deshpande"},  {kAll, "Joshi"},
    {kAll, "Patil"},     {kAll, "Gupta"},     {kAll, "Singh"},      {kAll, "Iyer"},
    {kAll, "Mehta"},     {kAll, "Jadhav"},    {kAll, "Pawar"},      {kAll, "Nair"},
    {kAll, "Reddy"},     {kAll, "Bhat"},      {kAll, "Gokhale"},    {kAll, "Menon"},
    {kAll, "Shinde"},    {kAll, "Banerjee"},  {kAll, "Agarwal"},    {kAll, "Kapoor"},
    {kAll, "Apte"},      {kAll, "Bhosale"},   {kAll, "Chavan"},     {kAll, "Thakur"},
    {kAll, "Rao"},       {kAll, "Jain"},      {kAll, "Khan"},       {kAll, "Shaikh"},
    {kAll, "Desai"},     {kAll, "Kale"},      {kAll, "Hegde"},      {kAll, "Sawant"},
    {kAll, "D'Souza"},   {kAll, "Naik"},      {kHeld, "Paranjpe"},  {kHeld, "Kelkar"},
    {kHeld, "Bapat"},    {kHeld, "Mahajan"},  {kHeld, "Dixit"},     {kHeld, "Chaudhari"},
    {kHeld, "Wagh"},     {kHeld, "Malhotra"}, {kHeld, "Fernandes"}, {kHeld, "Qureshi"},
    {kHeld, "Krishnan"}, {kHeld, "Saxena"},   {kHeld, "Tiwari"},    {kHeld, "Lokhande"},
    {kDev, "Ranade"},    {kDev, "Godbole"},   {kDev, "Karnik"},     {kDev, "Dalvi"},
    {kDev, "Mane"},      {kDev, "Pillai"},    {kDev, "Sethi"},      {kDev, "Ansari"},
    {kDev, "Kamath"},    {kDev, "Bhide"},
};

inline constexpr Entry kLocalities[] = {
    {kAll, "Kothrud"},        {kAll, "Baner"},
    {kAll, "Aundh"},          {kAll, "Viman Nagar"},
    {kAll, "Koregaon Park"},  {kAll, "Hadapsar"},
    {kAll, "Wakad"},          {kAll, "Hinjewadi"},
    {kAll, "Shivajinagar"},   {kAll, "Deccan"},
    {kAll, "Camp"},           {kAll, "Kondhwa"},
    {kAll, "Balewadi"},       {kAll, "Pashan"},
    {kAll, "Erandwane"},      {kAll, "Sadashiv Peth"},
    {kAll, "Yerawada"},       {kAll, "Wanowrie"},
    {kAll, "Karve Nagar"},    {kAll, "Kalyani Nagar"},
    {kAll, "Model Colony"},   {kHeld, "Kharadi"},
    {kHeld, "Magarpatta"},    {kHeld, "Bavdhan"},
    {kHeld, "Sinhagad Road"}, {kHeld, "Warje"},
    {kHeld, "NIBM Road"},     {kHeld, "Pimple Saudagar"},
    {kHeld, "Dhanori"},       {kHeld, "Undri"},
    {kHeld, "Prabhat Road"},  {kDev, "Bibwewadi"},
    {kDev, "Dhayari"},        {kDev, "Katraj"},
    {kDev, "Chinchwad"},      {kDev, "Lohegaon"},
    {kDev, "Mundhwa"},        {kDev, "Ravet"},
    {kDev, "Khadki"},
};

inline constexpr Entry kAddresses[] = {
    {kAll, "Flat 302, Sai Heights"},     {kAll, "B-14, Sunshine Society"},
    {kAll, "House 7, Lane 5"},           {kAll, "A-1102, Green Valley"},
    {kAll, "12, Shanti Kunj"},           {kAll, "Flat 9, Mohan Apartments"},
    {kAll, "Office 4B, Tech Park One"},  {kAll, "C-21, Nisarg Residency"},
    {kHeld, "C-503, Lotus Court"},       {kHeld, "Bungalow 3, Rose Lane"},
    {kHeld, "D-7, Ganga Nagar"},         {kDev, "E-402, Parijat Towers"},
    {kDev, "Row House 11, Silver Oaks"}, {kDev, "F-9, Kamal Niwas"},
};

// ---- Products -----------------------------------------------------------------------------------

// Cakes take a message, a flavour, a size and an eggless switch; the other kinds do not.
enum class Kind : unsigned char { kCake, kSmallBakes, kSweets };

struct Product {
  Use use;
  Kind kind;
  const char* name;        // "red velvet cake"
  const char* a_name;      // "a red velvet cake", "six pineapple pastries"
  const char* short_name;  // "cake", "pastries": what the email calls it after the first mention
  bool plural;
  int price_lo, price_hi;  // rupees
};

inline constexpr Product kProducts[] = {
    {kAll, Kind::kCake, "chocolate truffle cake", "a chocolate truffle cake", "cake", false, 650,
     1400},
    {kAll, Kind::kCake, "red velvet cake", "a red velvet cake", "cake", false, 700, 1500},
    {kAll, Kind::kCake, "black forest cake", "a black forest cake", "cake", false, 550, 1200},
    {kAll, Kind::kCake, "pineapple cake", "a pineapple cake", "cake", false, 500, 1000},
    {kAll, Kind::kCake, "butterscotch cake", "a butterscotch cake", "cake", false, 550, 1100},
    {kAll, Kind::kCake, "Belgian chocolate cake", "a Belgian chocolate cake", "cake", false, 800,
     1800},
    {kAll, Kind::kCake, "fresh fruit cake", "a fresh fruit cake", "cake", false, 700, 1400},
    {kAll, Kind::kCake, "blueberry cheesecake", "a blueberry cheesecake", "cheesecake", false, 900,
     1700},
    {kAll, Kind::kSmallBakes, "pineapple pastries", "six pineapple pastries", "pastries", true, 240,
     480},
    {kAll, Kind::kSmallBakes, "chocolate pastries", "a box of chocolate pastries", "pastries", true,
     300, 600},
    {kAll, Kind::kSmallBakes, "red velvet cupcakes", "a dozen red velvet cupcakes", "cupcakes",
     true, 480, 900},
    {kAll, Kind::kSmallBakes, "walnut brownies", "a box of walnut brownies", "brownies", true, 350,
     700},
    {kAll, Kind::kSweets, "Diwali hamper", "a Diwali hamper", "hamper", false, 1200, 3500},
    {kAll, Kind::kSweets, "dry fruit hamper", "a dry fruit hamper", "hamper", false, 1500, 4000},
    {kAll, Kind::kSweets, "kaju katli box", "a kaju katli box", "sweets", true, 450, 1100},
    {kAll, Kind::kSweets, "assorted mithai box", "an assorted mithai box", "sweets", true, 500,
     1200},
    {kAll, Kind::kSweets, "butter cookies", "a tin of butter cookies", "cookies", true, 250, 500},
    {kHeld, Kind::kCake, "hazelnut praline cake", "a hazelnut praline cake", "cake", false, 800,
     1600},
    {kHeld, Kind::kCake, "coffee walnut cake", "a coffee walnut cake", "cake", false, 650, 1300},
    {kHeld, Kind::kCake, "rasmalai cake", "a rasmalai cake", "cake", false, 750, 1500},
    {kHeld, Kind::kCake, "mango cheesecake", "a mango cheesecake", "cheesecake", false, 900, 1700},
    {kHeld, Kind::kSmallBakes, "blueberry pastries", "six blueberry pastries", "pastries", true,
     270, 540},
    {kHeld, Kind::kSmallBakes, "chocolate chip cookies", "a jar of chocolate chip cookies",
     "cookies", true, 280, 560},
    {kHeld, Kind::kSweets, "motichoor laddoo box", "a motichoor laddoo box", "sweets", true, 400,
     900},
    {kHeld, Kind::kSweets, "festive gift hamper", "a festive gift hamper", "hamper", false, 1400,
     3800},
    {kDev, Kind::kCake, "pista rose cake", "a pista rose cake", "cake", false, 700, 1400},
    {kDev, Kind::kCake, "caramel custard cake", "a caramel custard cake", "cake", false, 600, 1200},
    {kDev, Kind::kSmallBakes, "almond croissants", "four almond croissants", "croissants", true,
     240, 480},
    {kDev, Kind::kSweets, "kesar peda box", "a kesar peda box", "sweets", true, 380, 850},
};

// ---- Small value pools (shared by every split) --------------------------------------------------

inline constexpr const char* kFlavours[] = {"chocolate",  "vanilla",    "butterscotch",
                                            "pineapple",  "strawberry", "black forest",
                                            "red velvet", "coffee"};
inline constexpr const char* kSizes[] = {"half kg", "1 kg", "1.5 kg", "2 kg", "3 kg"};
// Ordered: time2 is always drawn later than time, so "if it won't arrive by {time2}" makes sense.
inline constexpr const char* kTimes[] = {"11 am", "1 pm",    "4 pm", "5:30 pm", "6 pm",
                                         "7 pm",  "7:30 pm", "8 pm", "9 pm"};
inline constexpr const char* kDays[] = {"Saturday", "Sunday",    "Friday",
                                        "Thursday", "tomorrow",  "the 14th",
                                        "the 22nd", "Dhanteras", "Lakshmi Puja"};
inline constexpr const char* kLate[] = {"40 minutes",   "45 minutes", "an hour",
                                        "over an hour", "90 minutes", "almost two hours",
                                        "two hours"};
inline constexpr const char* kDeliveredWhen[] = {"today", "yesterday", "this afternoon",
                                                 "last evening", "an hour ago"};
inline constexpr const char* kPlacedWhen[] = {"yesterday", "this morning", "last night",
                                              "on Monday", "last week"};
inline constexpr const char* kHeadcounts[] = {"25", "40", "60", "80", "120", "150", "200", "300"};
inline constexpr int kFees[] = {40, 49, 50, 60, 75, 80, 99};  // rupees
inline constexpr const char* kQuoteDates[] = {"Mon, 10 Nov", "Tue, 11 Nov", "Sat, 15 Nov",
                                              "Thu, 20 Nov", "Sun, 2 Nov"};

inline constexpr Entry kOccasions[] = {
    {kAll, "my daughter's 5th birthday"},
    {kAll, "our anniversary"},
    {kAll, "my parents' 40th anniversary"},
    {kAll, "the Diwali puja at home"},
    {kAll, "an office party"},
    {kAll, "my friend's engagement"},
    {kAll, "our housewarming"},
    {kAll, "my mom's 60th birthday"},
    {kAll, "my son's birthday"},
    {kAll, "a team farewell"},
    {kAll, "my wife's birthday"},
    {kAll, "Bhau Beej"},
    {kHeld, "my grandmother's 80th birthday"},
    {kHeld, "a baby shower"},
    {kDev, "my nephew's naming ceremony"},
    {kDev, "our society's Ganpati celebration"},
};

inline constexpr Entry kCakeMessages[] = {
    {kAll, "Happy Birthday Aarav"},  {kAll, "Happy 25th Anniversary"},
    {kAll, "Congratulations Neha"},  {kAll, "Happy Retirement Papa"},
    {kAll, "Shubh Deepavali"},       {kAll, "Welcome Home Baby Ira"},
    {kAll, "Happy Birthday Aai"},    {kHeld, "Best Wishes Tanya"},
    {kHeld, "Happy Birthday Kabir"}, {kDev, "Happy Birthday Dadi"},
    {kDev, "Congrats Rhea"},
};

// ---- Letter furniture ---------------------------------------------------------------------------

inline constexpr Entry kGreetings[] = {
    {kAll, "Hi Crumb team,"},
    {kAll, "Hello,"},
    {kAll, "Hi,"},
    {kAll, "Dear Crumb Support,"},
    {kAll, "Hello Crumb,"},
    {kAll, "Hi team,"},
    {kAll, "Dear Sir/Madam,"},
    {kAll, "Hey,"},
    {kAll, "Namaste,"},
    {kAll, "Good morning,"},
    {kAll, "Hi there,"},
    {kAll, "Hello team Crumb,"},
    {kHeld, "Good evening Crumb team,"},
    {kHeld, "Respected team,"},
    {kHeld, "Hello there,"},
    {kHeld, "Greetings,"},
    {kHeld, "Hey Crumb folks,"},
    {kDev, "Dear team,"},
    {kDev, "Hello support team,"},
    {kDev, "Good afternoon,"},
};

inline constexpr Entry kSignoffs[] = {
    {kAll, "Thanks,"},
    {kAll, "Thank you,"},
    {kAll, "Regards,"},
    {kAll, "Thanks and regards,"},
    {kAll, "Best,"},
    {kAll, "Thanks a lot,"},
    {kAll, "Best regards,"},
    {kAll, "Sincerely,"},
    {kAll, "Thank you so much,"},
    {kHeld, "Warm regards,"},
    {kHeld, "Cheers,"},
    {kHeld, "Many thanks,"},
    {kHeld, "Kind regards,"},
    {kHeld, "With thanks,"},
    {kDev, "Thanks again,"},
    {kDev, "Best wishes,"},
    {kDev, "Yours truly,"},
};

// Subject lines say nothing about the request, so the two sides of a pair can share one.
inline constexpr Entry kSubjectsDelivered[] = {
    {kAll, "Subject: Order {order}"},      {kAll, "Subject: About today's delivery"},
    {kAll, "Subject: Regarding my order"}, {kHeld, "Subject: About my order"},
    {kDev, "Subject: Yesterday's order"},
};
inline constexpr Entry kSubjectsPending[] = {
    {kAll, "Subject: Order {order}"},      {kAll, "Subject: My upcoming order"},
    {kAll, "Subject: Regarding my order"}, {kHeld, "Subject: About order {order}"},
    {kDev, "Subject: Order for {day}"},
};
inline constexpr Entry kSubjectsNone[] = {
    {kAll, "Subject: Query"},
    {kAll, "Subject: Question for Crumb"},
    {kHeld, "Subject: A question"},
    {kDev, "Subject: Enquiry"},
};

// Openers name the order; none of them asks for anything.
inline constexpr Entry kOpenersDelivered[] = {
    {kAll, "I ordered {a_product} for {occasion}, order {order}."},
    {kAll, "This is about order {order}, which was delivered to {locality} {delivered}."},
    {kAll, "We received {a_product} {delivered} (order {order})."},
    {kAll, "I'm writing about order {order}, {a_product} delivered to our place in {locality}."},
    {kAll, "Order {order} was delivered to us {delivered}."},
    {kAll, "We ordered the {product} for {occasion}, order no. {order}."},
    {kHeld, "Our order {order} reached us in {locality} {delivered}."},
    {kDev, "We got {a_product} from you {delivered}, order {order}."},
};
inline constexpr Entry kOpenersUpcoming[] = {
    {kAll, "I have {a_product} booked for {day} at {time}, order {order}."},
    {kAll, "I placed order {order} for {a_product} {placed}; delivery is set for {day}."},
    {kAll, "This is regarding order {order}, {a_product} for {occasion}."},
    {kAll, "My order number is {order}, {a_product} for {day}."},
    {kAll, "We ordered {a_product} for {occasion} (order {order})."},
    {kHeld, "I booked {a_product} with you for {day}, order {order}."},
    {kDev, "Order {order} is {a_product}, booked for {day} at {time}."},
};
inline constexpr Entry kOpenersDueToday[] = {
    {kAll, "I ordered {a_product} for delivery today at {time}, order {order}."},
    {kAll, "Order {order} was supposed to reach {locality} today at {time}."},
    {kAll, "My order {order} ({a_product}) is due today at {time}."},
    {kAll, "This is about order {order}, which should have come by {time}."},
    {kHeld, "We are waiting for {a_product} today, order {order}."},
    {kDev, "Today we are expecting {a_product} by {time}, order {order}."},
};
inline constexpr Entry kOpenersNone[] = {
    {kAll, "I have a quick question."},
    {kAll, "Hope you are doing well."},
    {kAll, "I have ordered from Crumb before."},
    {kAll, "A friend recommended Crumb to me."},
    {kAll, "My parents have been Crumb customers for years."},
    {kAll, "My sister told me about your cakes."},
    {kHeld, "My sister has ordered from Crumb before."},
    {kDev, "I follow Crumb on Instagram."},
};

// Neutral extra context, shared by every label of a situation.
inline constexpr Entry kFillersDelivered[] = {
    {kAll, "We have ordered from Crumb many times before."},
    {kAll, "It was for a special day, so I was really looking forward to it."},
    {kAll, "We moved to {locality} recently and this was our first order at the new place."},
    {kAll, "My sister sends cakes from Crumb to everyone in the family."},
    {kAll, "I have never had to ask you for a refund or a replacement before."},
    {kHeld, "We have ordered from you many times before."},
    {kDev, "Crumb is our usual bakery for family occasions."},
};
// Only where something went wrong.
inline constexpr Entry kFillersUnhappy[] = {
    {kAll, "This is the first time something like this has happened."},
    {kAll, "We have ordered from Crumb many times before."},
    {kAll, "Honestly, I expected better from Crumb."},
    {kAll,
     "Last time something went wrong you sent a new one quickly, so I know you sort things out."},
    {kAll, "I have never had to ask you for a refund or a replacement before."},
    {kAll, "My friend had to cancel an order with you once and she said you were helpful."},
    {kHeld, "We have ordered from you many times before."},
    {kDev, "Crumb is our usual bakery for family occasions."},
};
inline constexpr Entry kFillersPending[] = {
    {kAll, "I ordered it through your website."},
    {kAll, "Payment was made by UPI."},
    {kAll, "I have ordered from you many times before."},
    {kAll, "Last time I changed the address on an order and it went smoothly."},
    {kAll, "A friend of mine cancelled an order with you once and said it was easy."},
    {kAll, "We have just moved to {locality} and this is our first order here."},
    {kAll, "Your app usually sends a tracking link, but I have not checked it yet."},
    {kHeld, "I paid by card when I ordered."},
    {kDev, "I paid online when I placed the order."},
};
// For general inquiries; like the others they mention other requests only in passing.
inline constexpr Entry kFillersNone[] = {
    {kAll, "My cousin once had an order changed at the last minute and you handled it well."},
    {kAll, "We moved to Pune last year and are still finding good bakeries."},
    {kAll, "A friend said you are quick with refunds and replacements if anything goes wrong."},
    {kAll, "I have never ordered online from you, only from the shop."},
};

// Closing lines that ask for nothing, so they fit every label including feedback.
inline constexpr Entry kSoftExtras[] = {
    {kAll, "Thanks."},
    {kAll, "Thank you."},
    {kAll, "Thanks in advance."},
    {kAll, "Please dekh lo."},
    {kAll, "My number is on the order."},
    {kHeld, "Thank you for your time."},
    {kDev, "Have a good day."},
};
// Closing lines that push for a reply; never used with feedback.
inline constexpr Entry kPushExtras[] = {
    {kAll, "Please reply soon."},
    {kAll, "Jaldi kar do please."},
    {kAll, "Thoda urgent hai."},
    {kAll, "Bhaiya please help karo."},
    {kAll, "Please let me know today."},
    {kAll, "Waiting for your reply."},
    {kHeld, "Please get back to me soon."},
    {kDev, "Please reply at the earliest."},
};

inline constexpr const char* kEmojiNeutral[] = {"🙏"};
inline constexpr const char* kEmojiUnhappy[] = {"😞", "😡", "🙁", "🙏"};
inline constexpr const char* kEmojiHappy[] = {"😊", "🎂", "❤️", "👍"};

// Quoted earlier support message for a few longer emails; generic so it fits every label.
inline constexpr Entry kQuotes[] = {
    {kAll,
     "> On {qdate}, Crumb Support wrote:\n> Hi {first}, thanks for writing to us. Could you share "
     "your order number and a few details so we can help?\n> Team Crumb"},
    {kAll,
     "> On {qdate}, Crumb Support wrote:\n> Hello {first}, sorry for the trouble. Please tell us a "
     "little more about what happened.\n> Regards,\n> Crumb Care"},
    {kHeld,
     "> On {qdate}, Crumb Support wrote:\n> Dear {first}, we have received your message and will "
     "get back to you shortly.\n> Crumb Bakery, Pune"},
    {kDev,
     "> On {qdate}, Crumb Support wrote:\n> Hi {first}, we are sorry to hear this. Could you reply "
     "with the order number so we can look into it?\n> Crumb Help Desk"},
};

// Long variant for the few emails over 120 words: a welcome note the customer replies above.
inline constexpr Entry kLongQuotes[] = {
    {kAll,
     "> On {qdate}, Crumb Support wrote:\n> Hi {first}, thank you for choosing Crumb. All our "
     "cakes "
     "and pastries are baked fresh on the day of delivery, and our riders cover most of Pune "
     "between 10 am and 10 pm. If anything about your order is not right, simply reply to this "
     "email with your order number and a short note, and someone from our team will get back to "
     "you within a few hours.\n> Warmly,\n> Team Crumb, Pune"},
    {kHeld,
     "> On {qdate}, Crumb Support wrote:\n> Dear {first}, thanks for ordering with Crumb this "
     "festive season. Diwali weeks are our busiest, so delivery slots can move by up to an hour. "
     "If you need anything at all, reply to this email with your order number and we will look "
     "into it the same day.\n> Crumb Bakery, Pune"},
    {kDev,
     "> On {qdate}, Crumb Support wrote:\n> Hello {first}, welcome to Crumb. Every order is packed "
     "by hand in our Pune kitchen and handed to a rider who knows your area. Should anything go "
     "wrong, reply to this message with your order number and a few words about it, and we will "
     "answer within the day.\n> With love,\n> The Crumb kitchen"},
};

inline constexpr Entry kSignatures[] = {
    {kAll, "--\n{name}\n{address}, {locality}, Pune"},
    {kAll, "Sent from my iPhone"},
    {kAll, "--\n{name}\n{locality}, Pune"},
    {kAll,
     "--\n{name}\nAccounts Team, Sahyadri Infotech Pvt. Ltd.\n{locality}, Pune\n\nThis email "
     "and any attachments are confidential and meant only for the person it is addressed to. If "
     "you received it by mistake, please delete it and let the sender know."},
    {kHeld, "Sent from my Android phone"},
    {kHeld,
     "--\n{name}\nOperations, Deccan Logistics LLP\n{locality}, Pune\n\nThe contents of this "
     "message are confidential. If you are not the intended recipient, please tell the sender and "
     "delete it."},
    {kDev, "Sent from my tablet"},
    {kDev,
     "--\n{name}\nFinance, Shreeji Textiles\n{locality}, Pune\n\nThis message may contain "
     "confidential information. If it reached you in error, please delete it and inform the "
     "sender."},
};

// Typos are whole-word substitutions applied to the finished email, so they hit both sides of
// a pair identically and keep the token multisets equal.
struct Typo {
  const char* word;
  const char* typo;
};
inline constexpr Typo kTypos[] = {
    {"refund", "refnd"},
    {"cancel", "cancle"},
    {"delivery", "delivry"},
    {"please", "pls"},
    {"Please", "Pls"},
    {"received", "recieved"},
    {"replacement", "replacment"},
    {"address", "adress"},
    {"tomorrow", "tmrw"},
    {"because", "coz"},
    {"arrived", "arived"},
    {"you", "u"},
    {"order", "ordr"},
    {"really", "rly"},
    {"thanks", "thnx"},
};

}  // namespace router::crumb
