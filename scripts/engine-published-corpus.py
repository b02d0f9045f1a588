#!/usr/bin/env python3
"""Writes data/engines/corpus/published.csv: published throughputs, each with its source URL
and commit (TensorRT points of docs/validation.md; NVIDIA DeepLearningExamples PyTorch AMP
ResNet-50; timm RTX 4090 eager and torch.compile, held out; TensorRT FP16 at batch 1 from
torch2trt on a Jetson AGX Xavier and MMDeploy on a T4, held out). Figures typed in from the
sources named in each row. Run from the repository root."""
import csv
A="https://github.com/alibaba/ai-matrix/blob/471c0d4/results/Inference/Nvidia_V100_052019/results_trt_fp16/README.md (Alibaba AI Matrix, TensorRT 5, Caffe models)"
B="https://github.com/alibaba/ai-matrix/blob/3c3820d/results/Inference/Nvidia_T4_052019/results_trt_fp16/README.md (Alibaba AI Matrix, TensorRT 5, Caffe models)"
C="https://gist.github.com/1duo/efd3be1dc8eb2c45863b75f20a76f8b2 (TensorRT 4.0.0.3 on V100, personal benchmark)"
def ml(v,c,sysn): return f"https://github.com/mlcommons/{v}/tree/{c}/closed/NVIDIA/results/{sysn}/resnet50/Offline/performance/run_1 (MLPerf Inference, closed, NVIDIA, ResNet-50 Offline, INT8 TensorRT)"
trt=[("googlenet","v100","fp16",16,6451,A),("googlenet","v100","fp16",32,8676,A),("googlenet","v100","fp16",64,9907,A),
("resnet50","v100","fp16",16,4418,A),("resnet50","v100","fp16",32,5513,A),("resnet50","v100","fp16",64,6310,A),
("resnet152","v100","fp16",16,1742,A),("resnet152","v100","fp16",32,2096,A),("resnet152","v100","fp16",64,2421,A),
("densenet121","v100","fp16",16,1708,A),("densenet121","v100","fp16",32,2190,A),("densenet121","v100","fp16",64,2531,A),
("squeezenet1_1","v100","fp16",16,17830,A),("squeezenet1_1","v100","fp16",32,22670,A),("squeezenet1_1","v100","fp16",64,26634,A),
("googlenet","t4","fp16",16,3242,B),("googlenet","t4","fp16",32,3529,B),("googlenet","t4","fp16",64,3669,B),
("resnet50","t4","fp16",16,2248,B),("resnet50","t4","fp16",32,2408,B),("resnet50","t4","fp16",64,2508,B),
("resnet152","t4","fp16",16,902,B),("resnet152","t4","fp16",32,975,B),("resnet152","t4","fp16",64,1023,B),
("densenet121","t4","fp16",16,873,B),("densenet121","t4","fp16",32,920,B),("densenet121","t4","fp16",64,936,B),
("squeezenet1_1","t4","fp16",16,7499,B),("squeezenet1_1","t4","fp16",32,8254,B),("squeezenet1_1","t4","fp16",64,9109,B),
("resnet50","v100","fp16",128,6018,C),("resnet50","v100","fp16",256,6444,C),
("resnet50","t4","int8",256,6036,ml("inference_results_v0.7","1321d13","T4x1_TRT")),
("resnet50","a10","int8",1024,13805,ml("inference_results_v1.1","912dcdb","A10x1_TRT")),
("resnet50","a100-pcie-80gb","int8",2048,39152,ml("inference_results_v3.0","dad59af","A100-PCIe-80GBx1_TRT")),
("resnet50","h100-sxm","int8",2048,81292,ml("inference_results_v2.1","c43f76f","H100-SXM-80GBx1_TRT")),
("resnet50","l4","int8",32,12882,ml("inference_results_v3.1","eaf622a","L4x1_TRT")),
]
DLE="https://github.com/NVIDIA/DeepLearningExamples/blob/291f0d02e815b148fa5c2b81bf07aa3552142895/PyTorch/Classification/ConvNets/resnet50v1.5/README.md (PyTorch 21.03 NGC, AMP, eager, 'Mixed Precision Inference Latency' tables)"
dle=[("resnet50","v100","fp16",64,2984),("resnet50","v100","fp16",128,3249),("resnet50","v100","fp16",256,3382),
("resnet50","t4","fp16",64,1165),("resnet50","t4","fp16",128,1190),("resnet50","t4","fp16",256,1198)]
TIMM="https://github.com/huggingface/pytorch-image-models/blob/90cae8c5ab83d2d7e23b1fb2bab1559bfdcbc7e9/results/benchmark-infer-amp-nchw-pt291-cu128-4090.csv (timm, PyTorch 2.9.1, CUDA 12.8, AMP, NCHW, eager; HELD OUT: never used to fit)"
timm=[("resnet18","resnet18",13726.29),("resnet34","resnet34",8315.61),("resnet50","resnet50",4302.84),("resnet101","resnet101",2781.19),
("resnet152","resnet152",1976.86),("mobilenet_v2","mobilenetv2_100",10807.07),("mobilenet_v3_large","mobilenetv3_large_100",14586.41),
("mobilenet_v3_small","mobilenetv3_small_100",42944.24),("efficientnet_b0","efficientnet_b0",8794.71),("densenet121","densenet121",3630.79),
("densenet169","densenet169",2985.32),("densenet201","densenet201",2338.18),("densenet161","densenet161",1809.99),
("vgg11","vgg11",4503.99),("vgg13","vgg13",2841.91),("vgg16","vgg16",2235.61),("vgg19","vgg19",2044.71),
("vgg11_bn","vgg11_bn",3911.97),("vgg13_bn","vgg13_bn",2308.42),("vgg16_bn","vgg16_bn",1970.05),("vgg19_bn","vgg19_bn",1721.14),
("regnet_x_400mf","regnetx_004_tv",17598.16),("regnet_x_1_6gf","regnetx_016",6830.89),("regnet_x_3_2gf","regnetx_032",4409.8),("regnet_x_8gf","regnetx_080",3093.01),
("regnet_y_1_6gf","regnety_016",6027.68),("regnet_y_3_2gf","regnety_032",4190.43),("resnext50_32x4d","resnext50_32x4d",3493.48),
("wide_resnet50_2","wide_resnet50_2",2805.63),("wide_resnet101_2","wide_resnet101_2",1684.78),("resnext101_32x8d","resnext101_32x8d",1433.38),
("resnext101_64x4d","resnext101_64x4d",1448.16),("convnext_tiny","convnext_tiny",4814.88),("convnext_small","convnext_small",2977.1),
("convnext_base","convnext_base",2101.67),("mnasnet1_0","mnasnet_100",12523.79)]
with open("data/engines/corpus/published.csv","w",newline="") as f:
    w=csv.DictWriter(f,fieldnames=["model","device","dtype","batch","engine","mode","throughput","split","source","note"])
    w.writeheader()
    for m,d,dt,b,t,s in trt:
        w.writerow(dict(model=m,device=d,dtype=dt,batch=b,engine="tensorrt",mode="",throughput=t,split="fit",source=s,
          note="fit by rounds 1-2 (docs/validation.md); Caffe v1 ResNets and BVLC GoogLeNet are variants" if s in (A,B,C) else "round 1-2 data (docs/validation.md)"))
    for m,d,dt,b,t in dle:
        w.writerow(dict(model=m,device=d,dtype=dt,batch=b,engine="pytorch-eager",mode="eager",throughput=t,split="fit",source=DLE,note="NCHW; includes the harness's per-batch overhead"))
    for m,tm,t in timm:
        w.writerow(dict(model=m,device="rtx-4090",dtype="fp16",batch=1024,engine="pytorch-eager",mode="eager",throughput=t,split="heldout",source=TIMM,note=f"timm model {tm} at 224 px; torchvision's {m} is the same architecture" if tm!=m else "timm model at 224 px"))
DYN="https://github.com/huggingface/pytorch-image-models/blob/90cae8c5ab83d2d7e23b1fb2bab1559bfdcbc7e9/results/benchmark-infer-amp-nchw-pt291-cu128-4090-dynamo.csv (timm, PyTorch 2.9.1, CUDA 12.8, AMP, NCHW, torch.compile; HELD OUT: never used to fit)"
dyn=[("resnet18","resnet18",24941.46,1024),("resnet34","resnet34",14668.08,1024),("resnet50","resnet50",8039.05,1024),("resnet101","resnet101",5049.4,1024),
("mobilenet_v2","mobilenetv2_100",16292.93,1024),("mobilenet_v3_large","mobilenetv3_large_100",20718.56,1024),("mobilenet_v3_small","mobilenetv3_small_100",52167.63,1024),
("mnasnet1_0","mnasnet_100",19664.9,1024),("efficientnet_b0","efficientnet_b0",10785.82,1024),("densenet121","densenet121",6209.44,1024),
("densenet169","densenet169",4993.55,1024),("densenet201","densenet201",3703.97,768),("vgg11","vgg11",6998.89,1024),("vgg13","vgg13",4804.56,1024),
("vgg16","vgg16",3852.37,1024),("vgg11_bn","vgg11_bn",7005.9,1024),("vgg13_bn","vgg13_bn",4751.08,1024),("vgg16_bn","vgg16_bn",3805.83,1024),
("regnet_x_400mf","regnetx_004_tv",32358.84,1024),("regnet_x_1_6gf","regnetx_016",8262.12,1024),("regnet_x_3_2gf","regnetx_032",6109.86,1024),
("regnet_x_8gf","regnetx_080",4094.28,1024),("regnet_y_1_6gf","regnety_016",7211.18,1024),("regnet_y_3_2gf","regnety_032",4857.51,1024),
("resnext50_32x4d","resnext50_32x4d",6722.22,1024),("wide_resnet50_2","wide_resnet50_2",4684.21,1024),("convnext_tiny","convnext_tiny",6698.28,1024),
("convnext_small","convnext_small",3977.46,1024),("inception_v3","inception_v3",6662.83,1024)]
with open("data/engines/corpus/published.csv","a",newline="") as f:
    w=csv.DictWriter(f,fieldnames=["model","device","dtype","batch","engine","mode","throughput","split","source","note"])
    w.writerow(dict(model="inception_v3",device="rtx-4090",dtype="fp16",batch=1024,engine="pytorch-eager",mode="eager",throughput=3636.22,split="heldout",source=TIMM,note="timm model at 299 px"))
    for m,tm,t,b in dyn:
        w.writerow(dict(model=m,device="rtx-4090",dtype="fp16",batch=b,engine="pytorch-compile",mode="",throughput=t,split="heldout",source=DYN,note=f"timm model {tm}"))
X="https://github.com/NVIDIA-AI-IOT/torch2trt/blob/468012953a0a8d0c604c7faba39be1fd2584b9a6/benchmarks/JETSON_XAVIER.md (torch2trt: TensorRT engine with fp16_mode, float16 input 1x3x224x224; HELD OUT: never used to fit)"
xavier=[("alexnet",580),("squeezenet1_0",890),("squeezenet1_1",1390),("resnet18",712),("resnet34",393),("resnet50",312),
("resnet101",170),("resnet152",121),("densenet121",168),("densenet169",118),("densenet201",90.9),("densenet161",82.4),
("vgg11",201),("vgg13",166),("vgg16",139),("vgg19",121),("vgg11_bn",201),("vgg13_bn",166),("vgg16_bn",140),("vgg19_bn",121)]
MMD="https://github.com/open-mmlab/mmdeploy/blob/105acc9de90ea8b485305ed678bc14ecb97e9c54/docs/benchmark.md (MMDeploy latency benchmark: TensorRT 7.2.3.4 FP16, CUDA 11.3, T4, static 1x3x224x224; HELD OUT: never used to fit)"
mmd=[("resnet50",791.89),("resnext50_32x4d",703.42),("shufflenet_v2_x1_0",841.36)]
with open("data/engines/corpus/published.csv","a",newline="") as f:
    w=csv.DictWriter(f,fieldnames=["model","device","dtype","batch","engine","mode","throughput","split","source","note"])
    for m,t in xavier:
        w.writerow(dict(model=m,device="jetson-agx-xavier",dtype="fp16",batch=1,engine="tensorrt",mode="",throughput=t,split="heldout",source=X,
          note="batch 1, synchronised after every call (a latency given as FPS); JetPack 4.x TensorRT; the power mode is not stated"))
    for m,t in mmd:
        w.writerow(dict(model=m,device="t4",dtype="fp16",batch=1,engine="tensorrt",mode="",throughput=t,split="heldout",source=MMD,
          note="batch 1, synchronised after each inference, mean of 100 images; MMClassification's ResNet-50, ResNeXt-50 32x4d, ShuffleNet V2 1.0x"))
