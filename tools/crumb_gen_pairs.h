// Swap-pair families for crumb_gen. A family joins two labels: phrases_a ask for label_a,
// phrases_b for label_b, and each frame puts one phrase in {A} and the other in {B}. Swapping the
// two phrases gives the other side of the pair: the same tokens in another order, so only word
// order tells the labels apart. first_wins says whether the phrase in {A} is the one being asked
// for. Every phrase and frame must read well in both orders. kHeld frames appear only in test,
// kDev frames only in dev.
//
// Half the pairs of a family use one of its balanced frames instead: {A} and {B} sit between the
// same two words ("I want {A} refunded. I don't want {B} refunded."), so swapping them leaves the
// word pairs (bigrams) unchanged too, and the sides differ only in which phrase the words further
// away ("don't") reach. A bigram model sees the same features on both sides.
#pragma once

#include <span>

#include "crumb_gen_tables.h"

namespace router::crumb {

struct Frame {
  Use use;
  bool first_wins;
  const char* text;
};

struct PairFamily {
  const char* name;
  int pairs_per_1000;  // pairs per 1,000 emails of a split
  Situation situation;
  bool needs_cake;
  Label label_a, label_b;
  std::span<const Entry> stories;
  std::span<const Entry> phrases_a, phrases_b;
  std::span<const Frame> frames;
  std::span<const Frame> balanced_frames;
};

// ---- Shared stories: each fits both sides of its families ---------------------------------------

inline constexpr Entry kLateAndDamagedStories[] = {
    {kAll, "The {short} reached us {late} late and the box was dented on one side."},
    {kAll, "The rider came {late} after the slot and the {short} {was} a little squashed."},
    {kAll,
     "I paid {price} for the {short} and {fee} for delivery, and the whole thing was a letdown."},
    {kAll,
     "Delivery was promised by {time}, it came much later, and the {short} did not look like the "
     "photo."},
    {kAll, "We had to wait {late} for it and the packing was not great either."},
    {kHeld, "It came {late} late and the {short} had shifted inside the box."},
    {kDev, "The {short} came {late} after the slot and the lid of the box was crushed."},
};
inline constexpr Entry kPlansChangedStories[] = {
    {kAll, "Our plans for {day} have changed a bit."},
    {kAll, "Something has come up at home and the party may not happen the way we planned."},
    {kAll, "I just found out the guests may not be free at the planned time."},
    {kAll, "It has not been dispatched yet, so I hope it is not too late."},
    {kHeld, "There has been a change of plans on our side."},
    {kDev, "Things at home have changed since I placed the order."},
};
inline constexpr Entry kStillWaitingStories[] = {
    {kAll, "It was supposed to arrive by {time} and it's already past that."},
    {kAll, "The app has shown \"out for delivery\" for over an hour."},
    {kAll, "Nobody from your side has called and the rider is not answering."},
    {kAll, "We have been waiting at home all afternoon."},
    {kHeld, "There is still no sign of the rider."},
    {kDev, "No one has come to the door yet."},
};
inline constexpr Entry kMinorComplaintStories[] = {
    {kAll, "The rider was rude at the gate and the box was dented."},
    {kAll, "The {short} {was} not as fresh as last time, and the rider was rude on the phone."},
    {kAll, "The {short} looked nothing like the photo on your website."},
    {kAll, "The packing was poor and the {short} had shifted inside the box."},
    {kHeld, "The {short} {was} too sweet and the box arrived open."},
    {kDev, "The {short} {was} a little dry and the rider was curt."},
};
inline constexpr Entry kLateDeliveryStories[] = {
    {kAll, "The delivery came {late} late and the rider did not even apologise."},
    {kAll, "The rider got lost and reached {late} after the slot."},
    {kHeld, "We had to wait {late} after the slot for the rider."},
    {kDev, "The rider reached {late} after the slot we chose."},
};
inline constexpr Entry kSecondOrderStories[] = {
    {kAll, "Our plans for that week have changed."},
    {kAll, "We now have one more thing to sort out for {day}."},
    {kAll, "My family has different plans for {day} now."},
    {kHeld, "Our plans have changed since I ordered."},
    {kDev, "Something else has come up for {day}."},
};
// The problem stories of the single emails, minus the ones that point at one remedy.
inline constexpr Entry kDamagedStories[] = {
    {kAll, "The {short} {was} badly squashed when we opened the box."},
    {kAll, "The {short} tasted stale, like {they} had been sitting out for days."},
    {kAll, "We got someone else's order: the {short} {was} not what I had chosen."},
    {kAll, "There was a piece of plastic inside the {short}."},
    {kAll, "The {short} smelled sour and nobody could eat {it}."},
    {kHeld, "The {short} {was} badly squashed on one side."},
    {kDev, "The {short} {was} crushed flat by the time it reached us."},
};
inline constexpr Entry kLateAndBrokenStories[] = {
    {kAll, "The delivery came {late} late and the {short} {was} damaged in the box."},
    {kAll, "The rider was {late} late and the {short} had slid to one side of the box."},
    {kHeld, "It reached {late} late and the {short} {was} squashed in the box."},
    {kDev, "It arrived {late} late and the {short} {was} broken in the box."},
};

// ---- refund_delivery_fee vs refund_item ---------------------------------------------------------

inline constexpr Entry kFeeNouns[] = {{kAll, "the delivery fee"},
                                      {kAll, "the delivery charge"},
                                      {kAll, "the {fee} delivery fee"},
                                      {kAll, "the {fee} delivery charge"},
                                      {kAll, "the delivery charges"}};
inline constexpr Entry kItemNouns[] = {{kAll, "the {short}"},
                                       {kAll, "the {product}"},
                                       {kAll, "the {price} {short}"},
                                       {kAll, "the cost of the {short}"}};
inline constexpr Frame kRefundWhichFrames[] = {
    {kAll, true, "Please refund {A}, not {B}."},
    {kAll, true, "Refund {A}, not {B}, please."},
    {kAll, true, "Can you refund {A} instead of {B}?"},
    {kAll, true, "I only want {A} refunded, not {B}."},
    {kAll, false, "Don't refund {A}, just refund {B}."},
    {kAll, false, "You can keep the money for {A}, but please refund {B}."},
    {kAll, true, "Please refund {A} rather than {B}."},
    {kAll, true, "The refund should be for {A}, not for {B}."},
    {kAll, false, "Keep {A}, refund {B}."},
    {kHeld, true, "Could you refund {A} and not {B}?"},
    {kHeld, false, "Please don't refund {A}, only {B}."},
    {kDev, true, "Just refund {A}, not {B}."},
    {kDev, false, "Leave {A} alone and refund {B}."},
};

inline constexpr Frame kRefundWhichBalancedFrames[] = {
    {kAll, true, "I want {A} refunded. I don't want {B} refunded."},
    {kAll, false, "I don't want {A} refunded. I want {B} refunded."},
    {kAll, true, "I am asking you to refund {A} here. I am not asking you to refund {B} here."},
    {kAll, false, "There is no need to refund {A} now. Just refund {B} now."},
    {kHeld, true, "I need {A} refunded. I don't need {B} refunded."},
    {kDev, true, "Please refund {A} for me. Please don't refund {B} for me."},
};

// ---- refund_item vs replace_item (and refund_delivery_fee vs replace_item) ----------------------

inline constexpr Entry kRefundNouns[] = {
    {kAll, "a refund"}, {kAll, "a full refund"}, {kAll, "a refund of {price}"}};
inline constexpr Entry kReplaceNouns[] = {
    {kAll, "a replacement"}, {kAll, "{fresh_short}"}, {kAll, "{new_short}"}};
inline constexpr Entry kFeeBackNouns[] = {{kAll, "the delivery fee back"},
                                          {kAll, "a refund of the delivery charge"},
                                          {kAll, "a refund of the {fee} delivery fee"}};
inline constexpr Frame kWantNounFrames[] = {
    {kAll, true, "I want {A}, not {B}."},
    {kAll, true, "I would rather have {A} than {B}."},
    {kAll, true, "Please arrange {A} instead of {B}."},
    {kAll, false, "I don't want {A}, just {B}."},
    {kAll, true, "What I need is {A}, not {B}."},
    {kAll, true, "To be clear, I am asking for {A} and not {B}."},
    {kHeld, true, "I'd rather have {A} than {B}."},
    {kHeld, true, "All I want is {A}, not {B}."},
    {kDev, true, "I'm after {A}, not {B}."},
    {kDev, false, "Not {A}, I want {B}."},
};

// Also used by cancel_vs_change_noun.
inline constexpr Frame kWantNounBalancedFrames[] = {
    {kAll, true, "I want {A} for this. I don't want {B} for this."},
    {kAll, false, "I don't need {A} from you. I need {B} from you."},
    {kAll, true, "I am asking for {A} here. I am not asking for {B} here."},
    {kHeld, true, "I would like {A} from you. I would not like {B} from you."},
    {kDev, true, "I'm hoping for {A} here. I'm not hoping for {B} here."},
};

inline constexpr Entry kRefundVerbs[] = {
    {kAll, "refund me"},          {kAll, "refund the money"},    {kAll, "refund the full amount"},
    {kAll, "refund the {price}"}, {kAll, "send the money back"}, {kAll, "return what I paid"}};
inline constexpr Entry kReplaceVerbs[] = {
    {kAll, "send {new_short}"},    {kAll, "remake the {short}"},
    {kAll, "replace the {short}"}, {kAll, "send the {short} again"},
    {kAll, "deliver {new_short}"}, {kAll, "bake the {short} again"}};
inline constexpr Entry kFeeVerbs[] = {{kAll, "refund the delivery fee"},
                                      {kAll, "refund the delivery charge"},
                                      {kAll, "refund the {fee} delivery charge"},
                                      {kAll, "return the delivery charges"}};
inline constexpr Frame kDoVerbFrames[] = {
    {kAll, false, "Don't {A}, just {B}."},
    {kAll, true, "I'd like you to {A}, not {B}."},
    {kAll, true, "Please {A} rather than {B}."},
    {kAll, true, "I would prefer that you {A} and not {B}."},
    {kHeld, true, "Please just {A}, don't {B}."},
    {kDev, false, "No need to {A}, please {B}."},
};

inline constexpr Frame kDoVerbBalancedFrames[] = {
    {kAll, true, "I want you to {A} now. I don't want you to {B} now."},
    {kAll, false, "You don't need to {A} now. You just need to {B} now."},
    {kAll, false, "I don't want you to {A} now. I want you to {B} now."},
    {kHeld, true, "I'd like you to {A} now. I wouldn't like you to {B} now."},
    {kDev, true, "I am asking you to {A} this time. I am not asking you to {B} this time."},
};

// ---- cancel_order vs change_order ---------------------------------------------------------------

inline constexpr Entry kCancelVerbs[] = {{kAll, "cancel the order"},
                                         {kAll, "cancel the whole order"},
                                         {kAll, "cancel it"},
                                         {kAll, "cancel my order"},
                                         {kAll, "call off the order"}};
inline constexpr Entry kChangeVerbs[] = {{kAll, "change the delivery date"},
                                         {kAll, "change the address"},
                                         {kAll, "move it to {day2}"},
                                         {kAll, "change the delivery time to {time2}"},
                                         {kAll, "change the message on the {short}"},
                                         {kAll, "change the flavour to {flavour2}"},
                                         {kAll, "make it eggless"},
                                         {kAll, "change the size to {size2}"},
                                         {kAll, "send it to {address}"},
                                         {kAll, "deliver it on {day2}"},
                                         {kAll, "update the delivery address"}};
inline constexpr Frame kCancelChangeVerbFrames[] = {
    {kAll, false, "Don't {A}, just {B}."},        {kAll, true, "Please {A} rather than {B}."},
    {kAll, true, "I want to {A}, not {B}."},      {kAll, true, "I'd like you to {A}, not {B}."},
    {kAll, true, "I would rather {A} than {B}."}, {kAll, false, "Rather than {A}, could you {B}?"},
    {kHeld, true, "Please just {A}, don't {B}."}, {kHeld, true, "Can you {A} and not {B}?"},
    {kDev, false, "No need to {A}, please {B}."}, {kDev, true, "My request is to {A}, not to {B}."},
};
inline constexpr Entry kCancelNouns[] = {{kAll, "a cancellation"}, {kAll, "a full cancellation"}};
inline constexpr Entry kChangeNouns[] = {{kAll, "a date change"},       {kAll, "an address change"},
                                         {kAll, "a change of address"}, {kAll, "a time change"},
                                         {kAll, "a change of flavour"}, {kAll, "a size change"}};
inline constexpr Frame kCancelChangeNounFrames[] = {
    {kAll, true, "What I need is {A}, not {B}."},
    {kAll, true, "I am asking for {A} rather than {B}."},
    {kAll, false, "I don't want {A}, just {B}."},
    {kHeld, true, "All I want is {A}, not {B}."},
    {kDev, true, "I'm writing for {A}, not {B}."},
};

// Also used by the status and new-order families: every phrase there follows "to".
inline constexpr Frame kToVerbBalancedFrames[] = {
    {kAll, true, "I want to {A} now. I don't want to {B} now."},
    {kAll, false, "I don't want to {A} now. I want to {B} now."},
    {kAll, true, "I need to {A} today. I don't need to {B} today."},
    {kAll, false, "There is no need to {A} now. I only need to {B} now."},
    {kHeld, true, "I only want to {A} today. I do not want to {B} today."},
    {kDev, false, "I'm not writing to {A} today. I'm writing to {B} today."},
};

// ---- order_status vs cancel_order / change_order ------------------------------------------------

inline constexpr Entry kStatusVerbs[] = {{kAll, "know where it is"},
                                         {kAll, "know where my order is"},
                                         {kAll, "know when it will arrive"},
                                         {kAll, "find out where the rider is"},
                                         {kAll, "know how long it will take"},
                                         {kAll, "check if it has been dispatched"},
                                         {kAll, "know if it is out for delivery"},
                                         {kAll, "find out if it has left the bakery"}};
inline constexpr Entry kLateChangeVerbs[] = {
    {kAll, "change the delivery time"},      {kAll, "change the address"},
    {kAll, "move the delivery to {time2}"},  {kAll, "change the delivery address to {locality2}"},
    {kAll, "move it to tomorrow"},           {kAll, "have it sent to {address}"},
    {kAll, "have it delivered to my office"}};
inline constexpr Frame kJustWantFrames[] = {
    {kAll, false, "I don't want to {A}, I just want to {B}."},
    {kAll, true, "Right now I want to {A}, not {B}."},
    {kAll, false, "I am not trying to {A}, I only want to {B}."},
    {kAll, true, "For now I only want to {A}, not {B}."},
    {kHeld, true, "I just want to {A}, I don't want to {B}."},
    {kDev, false, "I'm not looking to {A}, I only need to {B}."},
};

// ---- feedback vs a request ----------------------------------------------------------------------

inline constexpr Entry kJustSharing[] = {{kAll, "just sharing feedback"},
                                         {kAll, "just letting you know"},
                                         {kAll, "only giving feedback"},
                                         {kAll, "just telling you what happened"}};
inline constexpr Entry kAskingRefund[] = {{kAll, "asking for a refund"},
                                          {kAll, "asking for my money back"},
                                          {kAll, "asking for a refund for the {short}"}};
inline constexpr Entry kAskingFeeBack[] = {{kAll, "asking for the delivery fee back"},
                                           {kAll, "asking for a refund of the delivery charge"},
                                           {kAll, "asking for the {fee} delivery charge back"}};
inline constexpr Entry kAskingReplacement[] = {{kAll, "asking for a replacement"},
                                               {kAll, "asking for {new_short}"},
                                               {kAll, "asking you to remake the {short}"}};
inline constexpr Frame kSharingFrames[] = {
    {kAll, false, "I am not {A}, I am {B}."},
    {kAll, true, "I'm {A}, not {B}."},
    {kAll, true, "To be honest, I'm {A} here, not {B}."},
    {kHeld, true, "Honestly, I am {A}, not {B}."},
    {kDev, false, "This is not me {A}, this is me {B}."},
};

inline constexpr Frame kSharingBalancedFrames[] = {
    {kAll, true, "I am {A} here. Please don't think I am {B} here."},
    {kAll, false, "Please don't think I am {A} here. I am {B} here."},
    {kAll, true, "To be clear, I am {A} now. It's not that I am {B} now."},
    {kHeld, false, "It's not that I am {A} now. Honestly, I am {B} now."},
    {kDev, true, "Please know I am {A} today. Please don't take it that I am {B} today."},
};

// ---- general_inquiry (a new order) vs change_order / cancel_order -------------------------------

inline constexpr Entry kNewOrderVerbs[] = {
    {kAll, "place a new order"}, {kAll, "book a separate order"}, {kAll, "place a fresh order"}};
inline constexpr Entry kExistingChangeVerbs[] = {{kAll, "change my existing order"},
                                                 {kAll, "add to my existing order"},
                                                 {kAll, "update my existing order"},
                                                 {kAll, "modify order {order}"}};
inline constexpr Entry kExistingCancelVerbs[] = {{kAll, "cancel my existing order"},
                                                 {kAll, "cancel order {order}"},
                                                 {kAll, "cancel the order I already have"}};
inline constexpr Frame kRatherThanFrames[] = {
    {kAll, false, "Rather than {A}, I'd like to {B}."},
    {kAll, true, "I want to {A}, not {B}."},
    {kAll, true, "I would rather {A} than {B}."},
    {kHeld, true, "I'd like to {A} rather than {B}."},
    {kDev, false, "Instead of trying to {A}, I want to {B}."},
};

inline constexpr PairFamily kPairFamilies[] = {
    {"fee_vs_item", 40, Situation::kDelivered, false, kRefundDeliveryFee, kRefundItem,
     kLateAndDamagedStories, kFeeNouns, kItemNouns, kRefundWhichFrames, kRefundWhichBalancedFrames},
    {"refund_vs_replace_noun", 16, Situation::kDelivered, false, kRefundItem, kReplaceItem,
     kDamagedStories, kRefundNouns, kReplaceNouns, kWantNounFrames, kWantNounBalancedFrames},
    {"refund_vs_replace_verb", 14, Situation::kDelivered, false, kRefundItem, kReplaceItem,
     kDamagedStories, kRefundVerbs, kReplaceVerbs, kDoVerbFrames, kDoVerbBalancedFrames},
    {"cancel_vs_change_verb", 22, Situation::kUpcoming, true, kCancelOrder, kChangeOrder,
     kPlansChangedStories, kCancelVerbs, kChangeVerbs, kCancelChangeVerbFrames,
     kToVerbBalancedFrames},
    {"cancel_vs_change_noun", 8, Situation::kUpcoming, true, kCancelOrder, kChangeOrder,
     kPlansChangedStories, kCancelNouns, kChangeNouns, kCancelChangeNounFrames,
     kWantNounBalancedFrames},
    {"fee_vs_replace_verb", 8, Situation::kDelivered, false, kRefundDeliveryFee, kReplaceItem,
     kLateAndBrokenStories, kFeeVerbs, kReplaceVerbs, kDoVerbFrames, kDoVerbBalancedFrames},
    {"fee_vs_replace_noun", 4, Situation::kDelivered, false, kRefundDeliveryFee, kReplaceItem,
     kLateAndBrokenStories, kFeeBackNouns, kReplaceNouns, kWantNounFrames, kWantNounBalancedFrames},
    {"status_vs_cancel", 15, Situation::kDueToday, false, kOrderStatus, kCancelOrder,
     kStillWaitingStories, kStatusVerbs, kCancelVerbs, kJustWantFrames, kToVerbBalancedFrames},
    {"status_vs_change", 12, Situation::kDueToday, false, kOrderStatus, kChangeOrder,
     kStillWaitingStories, kStatusVerbs, kLateChangeVerbs, kJustWantFrames, kToVerbBalancedFrames},
    {"feedback_vs_refund", 10, Situation::kDelivered, false, kFeedback, kRefundItem,
     kMinorComplaintStories, kJustSharing, kAskingRefund, kSharingFrames, kSharingBalancedFrames},
    {"feedback_vs_fee", 6, Situation::kDelivered, false, kFeedback, kRefundDeliveryFee,
     kLateDeliveryStories, kJustSharing, kAskingFeeBack, kSharingFrames, kSharingBalancedFrames},
    {"feedback_vs_replace", 6, Situation::kDelivered, false, kFeedback, kReplaceItem,
     kMinorComplaintStories, kJustSharing, kAskingReplacement, kSharingFrames,
     kSharingBalancedFrames},
    {"new_order_vs_change", 7, Situation::kUpcoming, false, kGeneralInquiry, kChangeOrder,
     kSecondOrderStories, kNewOrderVerbs, kExistingChangeVerbs, kRatherThanFrames,
     kToVerbBalancedFrames},
    {"new_order_vs_cancel", 5, Situation::kUpcoming, false, kGeneralInquiry, kCancelOrder,
     kSecondOrderStories, kNewOrderVerbs, kExistingCancelVerbs, kRatherThanFrames,
     kToVerbBalancedFrames},
};

}  // namespace router::crumb
