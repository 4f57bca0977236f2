// Single (unpaired) emails for crumb_gen: for each label, a few modes, each with the stories that
// lead up to the request and the request sentences themselves. A story never decides the label on
// its own: the same problem stories feed refund_item and replace_item, and late deliveries show up
// under refund_delivery_fee, feedback, order_status and cancel_order. kHeld entries appear only in
// the test split, kDev entries only in the dev split (see data/crumb/README.md).
#pragma once

#include <span>

#include "crumb_gen_tables.h"

namespace router::crumb {

enum class Tone : unsigned char { kUnhappy, kHappy, kNeutral };

struct Mode {
  int weight;
  Situation situation;
  bool needs_cake;  // requests mention a message, flavour, size or eggless
  Tone tone;
  bool stack;  // two of its stories may appear together (they add up instead of clashing)
  std::span<const Entry> stories;
  std::span<const Entry> requests;
};

// ---- Product problems (refund_item and replace_item share them) ---------------------------------

inline constexpr Entry kProblemStories[] = {
    {kAll, "The {short} {was} badly squashed when we opened the box."},
    {kAll, "The {short} tasted stale, like {they} had been sitting out for days."},
    {kAll, "We got someone else's order: the {short} {was} not what I had chosen."},
    {kAll, "There was a piece of plastic inside the {short}."},
    {kAll, "The {short} smelled sour and nobody could eat {it}."},
    {kAll, "We found a long hair in the {short}."},
    {kAll, "The {short} {was} so dry that nobody could finish {it}."},
    {kAll, "Half of what was listed on your website was missing from the box."},
    {kAll, "The {short} {was} far too sweet and nobody could eat more than a bite."},
    {kAll, "The box arrived open and the {short} had dried out."},
    {kAll, "The {short} looked nothing like the photo and tasted of old cream."},
    {kHeld, "The {short} {was} badly squashed on one side."},
    {kHeld, "The {short} smelled sour as soon as we opened the box."},
    {kDev, "The {short} {was} crushed flat by the time it reached us."},
    {kDev, "The {short} had a strange burnt taste."},
};
inline constexpr Entry kCakeProblemStories[] = {
    {kAll, "The icing had melted all over the box and the cake was a mess."},
    {kAll, "The cream on the {short} had gone sour by the time it reached us."},
    {kAll, "I ordered {flavour} but the {short} we got was {flavour2}."},
    {kAll, "The message on the {short} was spelt wrong and the top layer had caved in."},
    {kHeld, "The {short} had slid to one side and the cream had gone sour."},
    {kDev, "The layers of the {short} had collapsed and the cream had split."},
};

// ---- refund_item --------------------------------------------------------------------------------

inline constexpr Entry kRefundItemRequests[] = {
    {kAll, "Please refund the {price} I paid for the {short}."},
    {kAll, "I would like a full refund for order {order}."},
    {kAll, "Please refund the {short}."},
    {kAll, "I want my money back for the {short}."},
    {kAll, "Kindly process a refund for the {product}."},
    {kAll, "Please refund the whole order, we could not serve any of it."},
    {kAll, "Can you refund the amount for the {short} to my card?"},
    {kAll, "I'd like a refund for the {short}, not a replacement, as the party is over."},
    {kAll, "Please return the {price} for the {short}, the delivery itself was fine."},
    {kAll, "I don't want a replacement, please just refund the {short}."},
    {kAll, "Mujhe {short} ka refund chahiye."},
    {kAll, "Paise wapas kar do please, the {short} {was} not edible."},
    {kAll, "Please refund the money for the {short} at the earliest."},
    {kAll, "The delivery was on time, so this is only about the {short}: please refund {it}."},
    {kAll, "Please send the refund for the {short} to the card I paid with."},
    {kAll, "Can I have the {price} back for the {short}?"},
    {kAll, "I'd like my money back for order {order}, the {short} could not be eaten."},
    {kAll, "Kindly return the amount I paid for the {short}."},
    {kAll, "We could not use the {short} at all, so please refund the full amount."},
    {kAll, "Would it be possible to get a refund for the {short}?"},
    {kAll, "I am asking for a refund of the {price} for the {short}."},
    {kAll, "Please credit the money for the {short} back to my UPI."},
    {kAll, "A refund for the {short} is what I'd like, no need to send another."},
    {kAll, "The rider was fine, it's the {short}: please refund what I paid for {it}."},
    {kHeld, "Could you refund the {price} for the {short}, please?"},
    {kHeld, "Please give me my money back for the {short}."},
    {kHeld, "I need a refund for the {short} from order {order}."},
    {kDev, "Please refund me for the {short}."},
    {kDev, "I would like the money for the {short} returned, please."},
    {kDev, "Kindly refund the {price} for order {order}."},
};

inline constexpr Mode kRefundItemModes[] = {
    {3, Situation::kDelivered, false, Tone::kUnhappy, true, kProblemStories, kRefundItemRequests},
    {1, Situation::kDelivered, true, Tone::kUnhappy, true, kCakeProblemStories,
     kRefundItemRequests},
};

// ---- refund_delivery_fee ------------------------------------------------------------------------

inline constexpr Entry kFeeStories[] = {
    {kAll, "The {short} tasted great, but the delivery came {late} late."},
    {kAll,
     "Your rider never showed up, so I went to the {locality} outlet and picked up the {short} "
     "myself."},
    {kAll,
     "The app promised free delivery above ₹500, but I was still charged {fee} for delivery."},
    {kAll, "Everyone loved the {short}, but the delivery was {late} late."},
    {kAll, "The delivery slot was {time}, and the rider came {late} after that."},
    {kAll, "I was charged the delivery fee twice on order {order}."},
    {kAll, "I had selected store pickup, but {fee} was added as a delivery charge anyway."},
    {kHeld, "The rider went to the wrong address and we had to wait {late} for it."},
    {kHeld, "Nothing wrong with the {short}, but it came {late} after the slot."},
    {kDev, "The {short} {was} good, but the rider took {late} longer than promised."},
    {kDev, "The rider called from the wrong society and we waited {late} for him."},
};
inline constexpr Entry kFeeRequests[] = {
    {kAll, "Please refund the {fee} delivery charge."},
    {kAll, "Can I get the delivery fee back?"},
    {kAll, "I think the delivery charge of {fee} should be refunded."},
    {kAll, "Please reverse the {fee} delivery fee, the {short} {was} fine."},
    {kAll, "I'm happy with the {short}, I only want the delivery fee back."},
    {kAll, "No need to refund the {short}, just the delivery charge please."},
    {kAll, "Please return the delivery charges to my account."},
    {kAll, "Delivery charge wapas kar do please, {short} theek tha."},
    {kAll, "Kindly refund the delivery fee for order {order}."},
    {kAll,
     "I don't want anything back for the {short}, just refund the {fee} I paid for delivery."},
    {kAll, "Please send the {fee} delivery charge back to my UPI."},
    {kAll, "Can you return the delivery fee on order {order}?"},
    {kAll,
     "The {short} {was} lovely, so keep that payment, but I'd like the delivery charge back."},
    {kAll, "Would you refund the delivery fee? I have no complaint about the {short}."},
    {kAll, "I'm only asking for the {fee} delivery fee to be returned."},
    {kAll, "Please credit the delivery charge back to my card."},
    {kAll, "Since I picked it up myself, I'd like the delivery fee refunded."},
    {kHeld, "Could you refund just the delivery charge, please?"},
    {kHeld, "I would like the {fee} I paid for delivery refunded."},
    {kHeld, "Please give me back the delivery fee, the {short} {was} fine."},
    {kDev, "Please refund only the delivery fee."},
    {kDev, "Kindly pay back the {fee} delivery charge, the {short} {was} fine."},
    {kDev, "I'd like just the delivery charge refunded, please."},
};

inline constexpr Mode kRefundFeeModes[] = {
    {1, Situation::kDelivered, false, Tone::kUnhappy, false, kFeeStories, kFeeRequests},
};

// ---- replace_item -------------------------------------------------------------------------------

inline constexpr Entry kReplaceRequests[] = {
    {kAll, "Please send a replacement as soon as possible."},
    {kAll, "Can you remake the {short} and deliver {it} by {time}?"},
    {kAll, "I don't want a refund, just send {new_short}."},
    {kAll, "Could you send {fresh_short} today?"},
    {kAll, "Please send the {short} again, properly packed this time."},
    {kAll, "Naya {short} bhej do please, jaldi."},
    {kAll, "A replacement would be best, we still need the {short} for tonight."},
    {kAll, "Kindly arrange a replacement for order {order}."},
    {kAll, "No refund needed, I just need {new_short} before the party."},
    {kAll, "Please replace the {short}, the guests are coming at {time}."},
    {kAll, "Could you deliver {new_short} today instead?"},
    {kAll, "I'd like a replacement {short}, not my money back."},
    {kAll, "Please swap it for a proper {short} today."},
    {kAll, "Can the kitchen make the {short} again and have it delivered this evening?"},
    {kAll, "We would prefer a new {short} over a refund."},
    {kAll, "Kindly redeliver the {short}, packed properly this time."},
    {kAll, "Would you replace it with a fresh one by {time}?"},
    {kAll, "I don't need my money back, I need {new_short} today."},
    {kHeld, "Please remake the {short} and send {it} again."},
    {kHeld, "We need a replacement today, please."},
    {kHeld, "Please just send {fresh_short}, I don't need a refund."},
    {kDev, "Please send us {new_short} in place of this one."},
    {kDev, "Could you make the {short} again and deliver {it} today?"},
    {kDev, "We would like {fresh_short} instead, no refund needed."},
};
inline constexpr Entry kReplaceCakeRequests[] = {
    {kAll, "Please bake a fresh {short} and send it by {time}."},
    {kAll, "Can you bake the {short} again and send it before {time}?"},
    {kAll, "Could you make the {short} again, the right way, and deliver it by {time}?"},
    {kAll, "I'd like the {short} redone and brought over today."},
    {kHeld, "Please send a new {short} today, we still need one."},
    {kDev, "Please bake the {short} once more and deliver it today."},
};

inline constexpr Mode kReplaceModes[] = {
    {3, Situation::kDelivered, false, Tone::kUnhappy, true, kProblemStories, kReplaceRequests},
    {1, Situation::kDelivered, true, Tone::kUnhappy, true, kCakeProblemStories,
     kReplaceCakeRequests},
};

// ---- cancel_order -------------------------------------------------------------------------------

inline constexpr Entry kCancelStories[] = {
    {kAll, "The party has been called off."},
    {kAll, "My mother is unwell and we are not celebrating this year."},
    {kAll, "We have had a death in the family and the function is cancelled."},
    {kAll, "I accidentally placed the same order twice."},
    {kAll, "Our trip got moved up and nobody will be home that day."},
    {kAll, "My office already arranged a cake, so we don't need this one."},
    {kAll, "We thought about moving it to another day, but that will not work either."},
    {kAll, "I looked at changing the address, but there is no one to receive it anywhere."},
    {kAll, "We have moved to a new city and will not be in Pune that day."},
    {kAll, "The event got postponed indefinitely."},
    {kHeld, "The guests are not coming anymore."},
    {kHeld, "We will be out of Pune that whole week."},
    {kDev, "We are travelling that weekend after all."},
    {kDev, "The celebration has been dropped this year."},
};
inline constexpr Entry kCancelRequests[] = {
    {kAll, "Please cancel order {order}."},
    {kAll, "I need to cancel my order."},
    {kAll, "Kindly cancel the {product} and refund the amount."},
    {kAll, "Please cancel it and refund the money to my UPI."},
    {kAll, "Can you cancel the order before it is dispatched?"},
    {kAll, "Order cancel kar do please."},
    {kAll, "Please don't deliver it, cancel the whole order."},
    {kAll, "I don't want to change anything, please just cancel it."},
    {kAll, "Cancel the order please, we won't need it."},
    {kAll, "I'd like to cancel the order I placed {placed}."},
    {kAll, "Please call off the order, we won't be needing the {short}."},
    {kAll, "Please cancel the {short} and send the money back to my account."},
    {kAll, "There's no need to deliver anything, please cancel order {order}."},
    {kAll, "Please stop the order before it is sent out, I want to cancel it."},
    {kAll, "Kindly cancel it, no need to change anything, just cancel."},
    {kAll, "We won't need the {product} anymore, so please cancel it."},
    {kAll, "Can the order for {day} be cancelled, please?"},
    {kAll, "We won't need it this time, please cancel order {order}."},
    {kAll, "Please do not send the {short}, I am cancelling the order."},
    {kHeld, "Kindly cancel order {order}, we will not need it."},
    {kHeld, "Could you cancel my order for {day}?"},
    {kHeld, "We need this order cancelled, please."},
    {kDev, "Please cancel the order I placed for {day}."},
    {kDev, "I would like order {order} cancelled, please."},
    {kDev, "Please go ahead and cancel the order."},
};
// A late order the customer gives up on: cancel_order, not order_status.
inline constexpr Entry kLateCancelStories[] = {
    {kAll, "It is {late} late already and the party is over."},
    {kAll, "It was supposed to come by {time} and the guests have left now."},
    {kHeld, "We have been waiting {late} and the guests have left now."},
    {kDev, "The slot was {time}, there is still nothing, and our event has ended."},
};
inline constexpr Entry kLateCancelRequests[] = {
    {kAll, "Please cancel the order, we don't need it anymore."},
    {kAll, "Don't send it now, just cancel it and refund me."},
    {kAll, "I want to cancel this order, there is no point delivering it now."},
    {kHeld, "Please cancel it, it is too late now."},
    {kDev, "Please cancel the order now, it is no use to us anymore."},
};

inline constexpr Mode kCancelModes[] = {
    {4, Situation::kUpcoming, false, Tone::kNeutral, false, kCancelStories, kCancelRequests},
    {1, Situation::kDueToday, false, Tone::kUnhappy, false, kLateCancelStories,
     kLateCancelRequests},
};

// ---- change_order -------------------------------------------------------------------------------

inline constexpr Entry kAddressStories[] = {
    {kAll, "We have shifted the party to my sister's place."},
    {kAll, "I will be at my parents' home that day."},
    {kAll, "We are moving house that week, so nobody will be at the old address."},
    {kAll, "My sister is hosting now, so it has to go to her flat."},
    {kAll, "The celebration is now at my office instead of home."},
    {kHeld, "The party is now at a friend's flat."},
    {kDev, "We will celebrate at my brother's house instead."},
};
inline constexpr Entry kAddressRequests[] = {
    {kAll, "Please change the delivery address to {address}, {locality2}."},
    {kAll, "Delivery address change kar do please, naya address {address}, {locality2}."},
    {kAll, "Can you deliver it to {address}, {locality2} instead?"},
    {kAll, "I don't want to cancel, just update the address to {address}, {locality2}."},
    {kAll, "Please send the order to {address}, {locality2} instead of my home."},
    {kAll, "Kindly deliver it to {address}, {locality2} on the day."},
    {kAll, "Could the rider take it to {address}, {locality2} instead?"},
    {kAll, "Send it to {address}, {locality2} please, not to the old address."},
    {kAll, "The new delivery address is {address}, {locality2}, please update it."},
    {kAll, "Please have it delivered to {address}, {locality2} and not to my flat."},
    {kAll, "Can you send it over to {address}, {locality2} rather than my place?"},
    {kHeld, "Please send it to {address}, {locality2} this time."},
    {kDev, "Kindly change the address to {address}, {locality2}."},
};
inline constexpr Entry kDateStories[] = {
    {kAll, "The party has moved to {day2}."},
    {kAll, "The date I picked, {day}, does not work for us anymore."},
    {kHeld, "Our plans for that day have shifted."},
    {kDev, "We have had to push the party to another day."},
};
inline constexpr Entry kDateRequests[] = {
    {kAll, "Can you move the delivery from {day} to {day2}?"},
    {kAll, "I don't want to cancel, just change the date to {day2}."},
    {kAll, "Delivery {day2} ko kar do please, same time."},
    {kAll, "Please change the delivery to {day2} instead."},
    {kAll, "Could you deliver it on {day2} instead of {day}?"},
    {kAll, "Please send it on {day2} rather than {day}."},
    {kAll, "Can the order be shifted to {day2}?"},
    {kAll, "Please reschedule the delivery for {day2}."},
    {kHeld, "Could you move the delivery to {day2} instead?"},
    {kDev, "Please shift the delivery date to {day2}."},
};
inline constexpr Entry kTimeStories[] = {
    {kAll, "The party time has moved."},
    {kAll, "We will be out until late that evening."},
    {kHeld, "Nobody will be home at the time I picked."},
    {kDev, "We will only be home later in the evening."},
};
inline constexpr Entry kTimeRequests[] = {
    {kAll, "Please change the delivery time to {time2}."},
    {kAll, "Please update order {order}: deliver it at {time2} instead of {time}."},
    {kAll, "Can the rider come at {time2} instead?"},
    {kAll, "Please send it at {time2} rather than {time}."},
    {kAll, "Could you deliver it a bit later, around {time2}?"},
    {kAll, "Kindly shift the delivery slot to {time2}."},
    {kHeld, "Could you move the delivery to {time2} instead?"},
    {kDev, "Please make the delivery time {time2}."},
};
inline constexpr Entry kMessageStories[] = {
    {kAll, "I noticed a spelling mistake in the message I typed."},
    {kAll, "My daughter wants a different message on the cake."},
    {kHeld, "I typed the wrong name in the message."},
    {kDev, "My son spotted a mistake in the cake message."},
};
inline constexpr Entry kMessageRequests[] = {
    {kAll, "Please change the message on the {short} to \"{message}\"."},
    {kAll, "Please write \"{message}\" on the {short} instead."},
    {kAll, "Could you update the message on the {short} to \"{message}\"?"},
    {kAll, "The cake should say \"{message}\", please correct it."},
    {kHeld, "I'd like the message on the {short} changed to \"{message}\"."},
    {kDev, "Could the {short} say \"{message}\" instead?"},
};
inline constexpr Entry kEgglessChangeStories[] = {
    {kAll, "A few guests don't eat eggs."},
    {kAll, "My in-laws are joining us and they don't eat eggs."},
    {kAll, "We don't eat eggs at home."},
    {kAll, "My colleagues at the office are mostly vegetarian."},
    {kHeld, "Some of our guests don't eat eggs."},
    {kDev, "Two of our guests avoid eggs."},
};
inline constexpr Entry kEgglessChangeRequests[] = {
    {kAll, "Can you make the {short} eggless?"},
    {kAll, "Keep everything else the same, only make the {short} eggless."},
    {kAll, "Please make it eggless, same flavour and size."},
    {kAll, "Could you switch the {short} to the eggless version?"},
    {kAll, "I'd like to change the {short} to eggless, please."},
    {kHeld, "Please make order {order} eggless."},
    {kDev, "Please change order {order} to eggless."},
};
inline constexpr Entry kSizeStories[] = {
    {kAll, "More people are coming than we planned."},
    {kAll, "We have invited a few more people."},
    {kHeld, "The number of guests has changed."},
    {kDev, "A few more friends are joining us now."},
};
inline constexpr Entry kSizeRequests[] = {
    {kAll, "Can we change the size from {size} to {size2}?"},
    {kAll, "Please make it {size2} instead of {size}."},
    {kAll, "Could you make the {short} bigger, {size2} instead of {size}?"},
    {kAll, "Please update my order to a {size2} {short}."},
    {kHeld, "Could you change the cake to {size2}?"},
    {kDev, "Please increase the size to {size2}."},
};
inline constexpr Entry kFlavourStories[] = {
    {kAll, "My son just told me he wants a different flavour."},
    {kAll, "I picked {flavour} by mistake."},
    {kHeld, "My daughter now wants a different flavour."},
    {kDev, "My wife would like a different flavour now."},
};
inline constexpr Entry kFlavourRequests[] = {
    {kAll, "Please change the flavour to {flavour2}."},
    {kAll, "Can you make it {flavour2} instead of {flavour}?"},
    {kAll, "Could you switch the flavour to {flavour2}?"},
    {kAll, "I'd like {flavour2} instead, please update the order."},
    {kHeld, "Could the cake be {flavour2} instead?"},
    {kDev, "Please switch order {order} to {flavour2}."},
};

// The order is due today and running late, and the customer changes it rather than asking where
// it is: the stories are the first four of order_status's kLateStories (a copy: pointing at that
// table, with its other entries, would change every draw of the committed data).
inline constexpr Entry kRunningLateChangeStories[] = {
    {kAll, "It was supposed to arrive by {time} and it's already past that."},
    {kAll, "The app has shown \"out for delivery\" for over an hour now."},
    {kAll, "We have guests coming and there is no sign of it."},
    {kAll, "The rider's number is switched off."},
};
inline constexpr Entry kRunningLateChangeRequests[] = {
    {kAll, "I have to step out now, so please deliver it to {address}, {locality2} instead."},
    {kAll, "Nobody will be home after {time2}, so please change the address to my office."},
    {kAll, "Please hold it and deliver it at {time2} instead, we won't be home before that."},
    {kAll, "Since it is running late, please bring it to {address}, {locality2} instead."},
    {kAll,
     "I'm not asking where it is, just change the delivery address to {address}, {locality2}."},
    {kAll, "Please move the delivery to {time2} now, the party has shifted."},
    {kAll, "Can the rider drop it at {address}, {locality2} instead of my home?"},
    {kAll, "Change the delivery to tomorrow morning, we have given up on tonight."},
};

inline constexpr Mode kChangeModes[] = {
    {2, Situation::kDueToday, false, Tone::kUnhappy, false, kRunningLateChangeStories,
     kRunningLateChangeRequests},
    {3, Situation::kUpcoming, false, Tone::kNeutral, false, kAddressStories, kAddressRequests},
    {2, Situation::kUpcoming, false, Tone::kNeutral, false, kDateStories, kDateRequests},
    {2, Situation::kUpcoming, false, Tone::kNeutral, false, kTimeStories, kTimeRequests},
    {1, Situation::kUpcoming, true, Tone::kNeutral, false, kMessageStories, kMessageRequests},
    {1, Situation::kUpcoming, true, Tone::kNeutral, false, kEgglessChangeStories,
     kEgglessChangeRequests},
    {1, Situation::kUpcoming, true, Tone::kNeutral, false, kSizeStories, kSizeRequests},
    {1, Situation::kUpcoming, true, Tone::kNeutral, false, kFlavourStories, kFlavourRequests},
};

// ---- order_status -------------------------------------------------------------------------------

inline constexpr Entry kLateStories[] = {
    {kAll, "It was supposed to arrive by {time} and it's already past that."},
    {kAll, "The app has shown \"out for delivery\" for over an hour now."},
    {kAll, "The rider's number is switched off."},
    {kAll, "We have guests coming and there is no sign of it."},
    {kAll,
     "I had changed the delivery address last week, so I want to be sure it is coming to the right "
     "place."},
    {kAll, "The tracking page has not moved for an hour."},
    {kAll, "My guests have started asking where the {short} is."},
    {kAll, "There has been no update in the app for a long time."},
    {kHeld, "Nobody has called me about the delivery yet."},
    {kDev, "I have been calling the rider and nobody answers."},
};
inline constexpr Entry kLateRequests[] = {
    {kAll, "Where is my order?"},
    {kAll, "Can you tell me when it will arrive?"},
    {kAll, "Please share the rider's number or a tracking link."},
    {kAll, "Order kab tak aayega?"},
    {kAll, "Bhaiya, order kahan hai?"},
    {kAll, "If it won't arrive by {time2} I may have to cancel — where is it?"},
    {kAll, "If it doesn't come by {time2} I might cancel, so please tell me where it is."},
    {kAll, "I don't want to cancel, I just need to know when it will reach."},
    {kAll, "Is it still coming today?"},
    {kAll, "By what time should I expect it?"},
    {kAll, "I might have to change plans if it's late, so please tell me where it is."},
    {kAll, "Is it out for delivery yet?"},
    {kAll, "Has the rider left the shop?"},
    {kAll, "How far away is the rider now?"},
    {kAll, "Can you send me the tracking link for order {order}?"},
    {kAll, "Please check on the order and let me know when it will reach {locality}."},
    {kAll, "How much longer will it take?"},
    {kAll, "Please share an update on the delivery."},
    {kAll, "Can you tell me if the order is on its way?"},
    {kAll, "Has it left your kitchen or not?"},
    {kHeld, "Could you check where the rider is?"},
    {kHeld, "When can I expect the delivery?"},
    {kDev, "Can you tell me where the order has reached?"},
    {kDev, "How soon will it get here?"},
};
inline constexpr Entry kWaitingStories[] = {
    {kAll, "I haven't received any confirmation or tracking link yet."},
    {kAll, "I placed it {placed} and have heard nothing since."},
    {kAll, "I updated the address after ordering and never got a confirmation."},
    {kAll, "My family ordered from you before and they always got an SMS by now."},
    {kAll, "I have not had a single update since I paid."},
    {kAll, "My sister is hosting the party and keeps asking me about the order."},
    {kHeld, "The website still has no update on the order."},
    {kDev, "I still have no message about the order."},
};
inline constexpr Entry kWaitingRequests[] = {
    {kAll, "Has it been dispatched yet?"},
    {kAll, "What is the status of order {order}?"},
    {kAll, "Can you confirm it will arrive on time?"},
    {kAll, "Will it reach {locality} on time?"},
    {kAll, "Can you check if it has been dispatched?"},
    {kAll, "Could you confirm whether the order has been sent out?"},
    {kAll, "Has order {order} left the bakery yet?"},
    {kAll, "Is it going to be out for delivery on time?"},
    {kAll, "Could you let me know if everything is on track for {day}?"},
    {kAll, "When will it be dispatched?"},
    {kAll, "Please tell me the status, has it been packed and sent?"},
    {kAll, "Is there any update on order {order}?"},
    {kAll, "Any update on when it will be sent out?"},
    {kHeld, "Can someone tell me how long it will take?"},
    {kDev, "Could you tell me if it has been sent?"},
};

inline constexpr Mode kStatusModes[] = {
    {3, Situation::kDueToday, false, Tone::kUnhappy, true, kLateStories, kLateRequests},
    {1, Situation::kUpcoming, false, Tone::kNeutral, false, kWaitingStories, kWaitingRequests},
};

// ---- feedback -----------------------------------------------------------------------------------

inline constexpr Entry kPraiseStories[] = {
    {kAll, "Everyone loved the {product} at {occasion}."},
    {kAll, "The {short} looked exactly like the photo and tasted even better."},
    {kAll, "The rider was very polite and called before arriving."},
    {kAll, "The packaging was neat and the {short} arrived in perfect shape."},
    {kAll, "It was delivered right on time, even in the Diwali rush."},
    {kAll,
     "We moved to {locality} last month and this was our first order here, and it was perfect."},
    {kAll, "You even sent a little card with the {short}, which was sweet."},
    {kAll, "The whole family loved the {short}."},
    {kHeld, "My parents loved the {short}, it was the best we have had."},
    {kDev, "The {short} {was} the highlight of the evening."},
};
inline constexpr Entry kPraiseClosings[] = {
    {kAll, "Just wanted to say thank you!"},
    {kAll, "Keep up the good work!"},
    {kAll, "Please pass on my thanks to the baker."},
    {kAll, "Will definitely order again."},
    {kAll, "Bahut tasty tha, sabko pasand aaya!"},
    {kAll, "Thank you for making the day special."},
    {kAll, "Nothing to change, just a thank you."},
    {kAll, "We'll be ordering from you for every birthday now."},
    {kAll, "The whole party was happy, so thank you to everyone at Crumb."},
    {kAll, "You got everything right this time, thank you!"},
    {kHeld, "Thanks to the whole team for this."},
    {kDev, "Thank you so much to the whole bakery."},
};
inline constexpr Entry kComplaintStories[] = {
    {kAll, "The box was dented and the ribbon was torn."},
    {kAll, "The {short} {was} a bit too sweet for our taste."},
    {kAll, "The delivery came {late} late."},
    {kAll, "The rider asked me to come down to the gate instead of coming up."},
    {kAll, "Your customer care number did not pick up when I called."},
    {kAll, "The {short} {was} smaller than it looked in the photo."},
    {kAll, "I thought of asking for a refund, but the {short} {was} still fine to eat."},
    {kAll, "The rider had to be sent the address twice before he found us."},
    {kAll, "We had to move the party inside because the delivery was late."},
    {kAll, "The {short} {was} a little squashed on one side, but it still tasted fine."},
    {kAll, "The box was open at one corner when the rider handed it over."},
    {kHeld, "The box was open on one side when it arrived."},
    {kDev, "The ribbon on the box had come off and the lid was bent."},
};
inline constexpr Entry kComplaintClosings[] = {
    {kAll, "No need for a refund, I just wanted you to know."},
    {kAll, "Not asking for anything, just sharing so you can improve."},
    {kAll, "I am not asking for a refund or a replacement, only giving feedback."},
    {kAll, "Thought you should know."},
    {kAll, "This is just feedback, nothing needs to be done."},
    {kAll, "Hope it is better next time."},
    {kAll, "I don't need a refund or a new {short}, only mentioning it."},
    {kAll, "You don't have to send anything, it's only feedback."},
    {kAll, "No action needed from your side, just so you are aware."},
    {kAll, "I'm not after a refund, please just pass this on to the team."},
    {kHeld, "Nothing needs to be done, just letting you know."},
    {kHeld, "I just wanted to share this with your team."},
    {kDev, "No need to do anything, I only wanted to mention it."},
    {kDev, "I'm just passing this on so you know."},
};
inline constexpr Entry kRudeRiderStories[] = {
    {kAll, "The rider was rude and threw the box on the counter."},
    {kAll, "The rider shouted at our watchman over the parking."},
    {kHeld, "The rider was rude to my mother at the gate."},
    {kDev, "The rider argued with my father over the change."},
};
inline constexpr Entry kRudeRiderClosings[] = {
    {kAll, "No need for a refund, just wanted you to know the rider was rude."},
    {kAll, "The {short} was fine, I don't want anything back, but please know this happened."},
    {kAll, "I don't want a refund or a replacement, just please speak to him."},
    {kHeld, "I am not asking for money back, only letting you know about the rider."},
    {kDev, "I do not want a refund, only that you know how the rider behaved."},
};

inline constexpr Mode kFeedbackModes[] = {
    {3, Situation::kDelivered, false, Tone::kHappy, true, kPraiseStories, kPraiseClosings},
    {3, Situation::kDelivered, false, Tone::kNeutral, true, kComplaintStories, kComplaintClosings},
    {1, Situation::kDelivered, false, Tone::kUnhappy, true, kRudeRiderStories, kRudeRiderClosings},
};

// ---- general_inquiry ----------------------------------------------------------------------------

inline constexpr Entry kEgglessStories[] = {
    {kAll, "We don't eat eggs at home."},
    {kAll, "My in-laws are visiting and they are strict vegetarians."},
    {kAll, "We recently shifted to {locality} and are looking for a new bakery."},
    {kAll, "A few guests don't eat eggs."},
    {kAll, "My in-laws are joining us and they don't eat eggs."},
    {kAll, "My sister told me you do good eggless cakes."},
    {kHeld, "Half of my office does not eat eggs."},
    {kDev, "My neighbours don't eat eggs."},
};
inline constexpr Entry kEgglessRequests[] = {
    {kAll, "Do you have eggless options for the {product}?"},
    {kAll, "Are your brownies made without eggs?"},
    {kAll, "Which cakes can you make eggless, and is there an extra charge?"},
    {kAll, "Eggless cake milega kya?"},
    {kAll, "Could you let me know if the {product} comes in an eggless version?"},
    {kAll, "Can you send me a list of your eggless items?"},
    {kAll, "Do any of your pastries come without eggs?"},
    {kHeld, "Which of your cakes are eggless?"},
    {kDev, "Do you make any cakes without eggs?"},
};
inline constexpr Entry kAllergenStories[] = {
    {kAll, "My son is allergic to nuts."},
    {kAll, "My wife is diabetic."},
    {kHeld, "One of our guests is allergic to nuts."},
    {kDev, "My daughter cannot have nuts."},
};
inline constexpr Entry kAllergenRequests[] = {
    {kAll, "Does the {product} contain nuts or gelatin?"},
    {kAll, "Do you have sugar-free options?"},
    {kAll, "Is the {product} made in a kitchen that handles peanuts?"},
    {kAll, "Could you send me the ingredients list for the {product}?"},
    {kAll, "Is your {product} available without eggs or nuts?"},
    {kAll, "Is there any egg or alcohol in the {product}?"},
    {kAll, "Can you tell me if the {product} has any nuts?"},
    {kHeld, "Can you tell me what is in the {product}?"},
    {kDev, "Which allergens does the {product} have?"},
};
inline constexpr Entry kShopStories[] = {
    {kAll, "I live in {locality}."},
    {kAll, "I'm planning {occasion} next week."},
    {kAll, "I was passing by your store yesterday."},
    {kAll, "My family moved to {locality} a few months ago."},
    {kAll, "We recently shifted to a new flat near {locality}."},
    {kAll, "My cousin has ordered from you a few times."},
    {kAll, "My mother ordered a cake from you last year and loved it."},
    {kHeld, "We just moved to {locality}."},
    {kDev, "I work near {locality}."},
};
inline constexpr Entry kShopRequests[] = {
    {kAll, "What time does your {locality} outlet close on Sundays?"},
    {kAll, "Can you share your menu and price list?"},
    {kAll, "How much is a {size} {flavour} cake?"},
    {kAll, "Do you deliver to {locality}, and what is the delivery charge?"},
    {kAll, "Can I order a custom photo cake? How many days in advance should I book?"},
    {kAll, "Are you open on Diwali?"},
    {kAll, "What are your opening hours on weekdays?"},
    {kAll, "Can you give me a rough price for a {size} {flavour} cake?"},
    {kAll, "Till what time is your shop open in the evenings?"},
    {kAll, "Could you send me your menu on WhatsApp?"},
    {kAll, "Do you deliver as far as {locality}?"},
    {kAll, "When do you open and close on weekends?"},
    {kAll, "Could you let me know if you deliver on Sundays?"},
    {kAll, "Is there an outlet near {locality}, and what are its timings?"},
    {kAll, "What is the minimum order for free delivery?"},
    {kAll, "Do you have a store in {locality} where I can pick up?"},
    {kAll, "Do you send updates on WhatsApp when an order is on its way?"},
    {kAll, "How much does a {size} {flavour} cake cost?"},
    {kAll, "Can you tell me the price of a {size} {flavour} cake?"},
    {kAll, "Please tell me if you deliver to {locality} on Sundays."},
    {kHeld, "Could you tell me your opening hours?"},
    {kDev, "When does your shop open in the morning?"},
};
inline constexpr Entry kBulkStories[] = {
    {kAll, "We are a team of {n} people at an office in {locality}."},
    {kAll, "Our company wants to send Diwali gifts to clients this year."},
    {kHeld, "Our society wants Diwali gifts for every flat this year."},
    {kDev, "Our school wants sweets for {n} teachers this Diwali."},
};
inline constexpr Entry kBulkRequests[] = {
    {kAll, "Do you take bulk orders for Diwali hampers? We need about {n}."},
    {kAll, "Do you do corporate gifting for {n} employees?"},
    {kAll, "Is there a discount on orders above {n} pieces?"},
    {kAll, "Could you send me a quote for {n} gift boxes?"},
    {kAll, "Can you deliver {n} hampers to one office address?"},
    {kAll, "What does one Diwali hamper cost if we take {n}?"},
    {kHeld, "What would {n} Diwali hampers cost?"},
    {kDev, "Can we get a price for {n} hampers?"},
};
inline constexpr Entry kNewOrderStories[] = {
    {kAll, "I'm planning {occasion} next week."},
    {kAll, "We have guests coming over for {day}."},
    {kAll, "My sister is hosting a small get-together on {day}."},
    {kAll, "We are having a party at home on {day}."},
    {kAll, "My family has ordered from you for years."},
    {kHeld, "We have a small party at home for {day}."},
    {kDev, "My brother's birthday is on {day}."},
};
inline constexpr Entry kNewOrderRequests[] = {
    {kAll, "I'd like to place an order for a {size} {flavour} cake for {day}."},
    {kAll, "Can I order {a_product} for {day}?"},
    {kAll, "I want to place a new order for {a_product}, delivery to {locality}."},
    {kAll, "Could you take an order for {a_product} to be delivered on {day}?"},
    {kAll, "Please help me book {a_product} for {day}, delivery to {locality}."},
    {kAll, "I'd like to order {a_product}; can it be sent to {locality} on {day}?"},
    {kAll, "I'd like to try {a_product} this time, for {day}. Can I order it here?"},
    {kHeld, "I want to order {a_product} for {day}. How do I place it?"},
    {kDev, "Can I book {a_product} for {day} through email?"},
};

inline constexpr Mode kGeneralModes[] = {
    {2, Situation::kNone, false, Tone::kNeutral, true, kEgglessStories, kEgglessRequests},
    {1, Situation::kNone, false, Tone::kNeutral, true, kAllergenStories, kAllergenRequests},
    {2, Situation::kNone, false, Tone::kHappy, true, kShopStories, kShopRequests},
    {1, Situation::kNone, false, Tone::kNeutral, false, kBulkStories, kBulkRequests},
    {2, Situation::kNone, false, Tone::kHappy, false, kNewOrderStories, kNewOrderRequests},
};

inline constexpr std::span<const Mode> kModesByLabel[kNumLabels] = {
    kRefundItemModes, kRefundFeeModes, kReplaceModes,  kCancelModes,
    kChangeModes,     kStatusModes,    kFeedbackModes, kGeneralModes};

}  // namespace router::crumb
