cd /work/main
end=$(( $(date +%s) + 600 ))
i=0
while [ $(date +%s) -lt $end ]; do
  for m in c3x3:/work/notes/s42/anchor/c3x3.onnx c1x1:/work/notes/s42/anchor/c1x1.onnx resnet34:models/resnet34.onnx mobilenet_v2:models/mobilenet_v2.onnx efficientnet_b0:models/efficientnet_b0.onnx; do
    n=${m%%:*}; f=${m#*:}
    ./build/rooflens measure $f --batch 8 --max-seconds 0.7 --format json --device docs/generated/validate-cpu-2026-12-05/device-probe-3.json -o /work/notes/s42/anchor/r$i-$n.json 2>/dev/null
  done
  i=$((i+1))
done
