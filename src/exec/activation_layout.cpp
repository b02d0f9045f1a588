// Activation layouts by name (include/rooflens/exec/backend.h).
#include "rooflens/exec/backend.h"

namespace rooflens {

Expected<ActivationLayout> parse_activation_layout(const std::string& name) {
  constexpr ActivationLayout kLayouts[] = {ActivationLayout::kChannelsLast, ActivationLayout::kBlocked,
                                           ActivationLayout::kAuto};
  for (size_t i = 0; i < std::size(kLayouts); ++i)
    if (name == kActivationLayoutNames[i]) return kLayouts[i];
  return Status::invalid("layout '" + name + "': expected " + kActivationLayoutNames[0] + ", " +
                         kActivationLayoutNames[1] + " or " + kActivationLayoutNames[2]);
}

}  // namespace rooflens
