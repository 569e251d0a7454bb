# A CSV file with no line at all: there is no column count to give, so it is an error naming
# the file (it used to load as a [0, 0] tensor and fail, if at all, far from the cause).
import data
x = data.load_csv("empty.csv")
print(x)
