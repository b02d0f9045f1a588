# Architecture variants that are not in the zoo (other widths, depths, groups), exported to
# ONNX: does their measured/predicted level track the zoo's?
import torch, torchvision
from torchvision.models import resnet, mobilenetv2, mobilenetv3, regnet, densenet, efficientnet
from functools import partial
nets = {
    "resnet_b2222": lambda: resnet.ResNet(resnet.Bottleneck, [2, 2, 2, 2]),
    "resnet_basic1111": lambda: resnet.ResNet(resnet.BasicBlock, [1, 1, 1, 1]),
    "resnext_g16": lambda: resnet.ResNet(resnet.Bottleneck, [2, 2, 2, 2], groups=16, width_per_group=4),
    "mobilenet_v2_075": lambda: mobilenetv2.MobileNetV2(width_mult=0.75),
    "mobilenet_v3_large_075": lambda: mobilenetv3.MobileNetV3(*mobilenetv3._mobilenet_v3_conf("mobilenet_v3_large", width_mult=0.75)),
    "regnet_custom": lambda: regnet.RegNet(regnet.BlockParams.from_init_params(depth=14, w_0=40, w_a=20.0, w_m=2.4, group_width=16)),
    "densenet_small": lambda: densenet.DenseNet(growth_rate=24, block_config=(4, 8, 12, 8), num_init_features=48),
    "efficientnet_w08": lambda: efficientnet.EfficientNet(efficientnet._efficientnet_conf("efficientnet_b0", width_mult=0.8, depth_mult=0.8)[0], 0.2),
}
for name, make in nets.items():
    m = make().eval()
    torch.onnx.export(m, torch.randn(1, 3, 224, 224), f"./{name}.onnx", opset_version=13,
                      input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
    print(name)
